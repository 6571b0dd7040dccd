// The main job on one machine: a local cluster minus kubelets (etcd, kube-apiserver,
// kube-controller-manager without the controllers kube-loom replaces, kube-scheduler, and kwok
// playing one Node), the project's CRDs applied, and the compiled kube-loom running against it in
// the foreground.
//   bun deploy/local.ts [kube-loom flags…]     (deploy/local-up.sh also installs everything first)
// The first run builds kube-controller-manager, kube-scheduler and kwok (minutes, progress shown).
// Ctrl-C stops kube-loom (it releases its lease) and then the cluster.
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { builtinControllers } from "../controllers/registry.ts";
import { parseCommandLine } from "../pkg/options/parse-command-line.ts";
import { kubeLoomProgram } from "../pkg/version.ts";
import { FAKE_NODE_NAME, KUBE_CONTROLLER_MANAGER_CONTROLLERS, LocalCluster } from "../test/controlplane/local-cluster.ts";

const repoRoot = resolve(import.meta.dir, "..");
/** What kube-loom is started with before the caller's flags; a flag the caller repeats overrides these (the last one counts). */
const servingDefaults = [
  // HTTPS with delegated authentication, as in a cluster.
  "--bind-address=127.0.0.1",
  "--secure-port=10257",
  // Plain HTTP without authentication, on loopback only: for a person at this machine.
  "--address=127.0.0.1",
  "--port=10251",
];
const kubeLoomArgs = [...servingDefaults, "--log-format=text", ...process.argv.slice(2)];

/** Where kube-loom will serve, as its own parser reads the arguments (a --config file included); undefined: off. */
function servingFromArgs(args: readonly string[]): { https: string | undefined; http: string | undefined } {
  const parsed = parseCommandLine(args, { controllers: builtinControllers, program: kubeLoomProgram });
  // Arguments kube-loom refuses: it says why itself and exits, and nothing is served.
  if (parsed.kind !== "run") return { https: undefined, http: undefined };
  const { secure, insecure } = parsed.options.serving;
  // An address that listens everywhere is reached on loopback from here; IPv6 goes in brackets.
  const host = (address: string) => {
    if (address === "" || address === "0.0.0.0") return "127.0.0.1";
    if (address === "::") return "[::1]";
    return address.includes(":") ? `[${address}]` : address;
  };
  // Port 0 turns the server off.
  const url = (scheme: string, address: string, port: number) => (port === 0 ? undefined : `${scheme}://${host(address)}:${port}`);
  return { https: url("https", secure.bindAddress, secure.port), http: url("http", insecure.address, insecure.port) };
}

const build = Bun.spawnSync(["./node_modules/.bin/bun", "run", "build"], { cwd: repoRoot, stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const startedAt = performance.now();
const cluster = await LocalCluster.start().catch((error: unknown) => {
  // The message names the piece that failed, its log file and the log's last lines.
  console.error(`the local cluster failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
const { controlPlane } = cluster;
// kustomization.yaml only lists the CRDs (for deploy/kubernetes); it is no object to apply.
for (const file of readdirSync(join(repoRoot, "config", "crd")).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")) {
  const applied = await controlPlane.kubectl(["apply", "-f", join(repoRoot, "config", "crd", file)]);
  if (applied.code !== 0) console.error(`applying ${file} failed: ${applied.stderr}`);
}

const kubeLoom = Bun.spawn([join(repoRoot, "dist", "kube-loom"), `--kubeconfig=${controlPlane.kubeconfigPath}`, ...kubeLoomArgs], { stdout: "inherit", stderr: "inherit" });
const { https, http } = servingFromArgs(kubeLoomArgs);
// kube-loom checks client certificates against the API server's client CA, and the admin's may GET every path.
const { certFile, keyFile } = controlPlane.admin;
console.log(
  [
    "",
    `kube-loom is running against a local cluster (up in ${((performance.now() - startedAt) / 1000).toFixed(0)} s): etcd, kube-apiserver,`,
    `kube-controller-manager --controllers=${KUBE_CONTROLLER_MANAGER_CONTROLLERS}, kube-scheduler,`,
    `and kwok playing the node ${FAKE_NODE_NAME} (its Pods turn Running and Ready; no containers run).`,
    ...(https
      ? [
          `  health:     ${https}/healthz  (self-signed: curl -k; also /livez, /readyz; no credentials needed)`,
          `  HTTPS:      curl -k --cert ${certFile} --key ${keyFile} ${https}/metrics`,
          `              (the cluster admin's client certificate; likewise /debug/status.json, /statusz, /flagz)`,
        ]
      : ["  HTTPS:      off (--secure-port=0)"]),
    ...(http
      ? [
          `  status:     ${http}/debug/status  (open it in a browser)`,
          `  metrics:    ${http}/metrics  (plain HTTP, no credentials)`,
        ]
      : ["  plain HTTP: off (--port=0): the status page and /metrics only over HTTPS, as above"]),
    `  kubectl:    export KUBECONFIG=${controlPlane.kubeconfigPath}`,
    `  try:        kubectl apply -f deploy/examples/ && kubectl get pods,replicasets,deployments -o wide`,
    `              kubectl set image deployment/web pause=registry.k8s.io/pause:3.9 && kubectl rollout status deployment/web`,
    `  logs:       ${controlPlane.dir}/*.log`,
    `  stop:       Ctrl-C`,
    "",
  ].join("\n"),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => kubeLoom.kill("SIGTERM"));
const code = await kubeLoom.exited;
console.error(`kube-loom exited (${code}); stopping the local cluster`);
await cluster.stop();
process.exit(code);
