// The main job on one machine: a local control plane (real etcd + kube-apiserver), the
// project's CRDs applied, and the compiled kube-loom running against it in the foreground.
//   bun deploy/local.ts [kube-loom flags…]     (deploy/local-up.sh also installs everything first)
// Ctrl-C stops kube-loom (it releases its lease) and then the control plane.
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ControlPlane } from "../test/controlplane/control-plane.ts";

const repoRoot = resolve(import.meta.dir, "..");
const port = 10257;

const build = Bun.spawnSync(["./node_modules/.bin/bun", "run", "build"], { cwd: repoRoot, stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const controlPlane = await ControlPlane.start();
for (const file of readdirSync(join(repoRoot, "config", "crd")).filter((f) => f.endsWith(".yaml"))) {
  const applied = await controlPlane.kubectl(["apply", "-f", join(repoRoot, "config", "crd", file)]);
  if (applied.code !== 0) console.error(`applying ${file} failed: ${applied.stderr}`);
}

const kubeLoom = Bun.spawn(
  [join(repoRoot, "dist", "kube-loom"), `--kubeconfig=${controlPlane.kubeconfigPath}`, "--bind-address=127.0.0.1", `--port=${port}`, "--log-format=text", ...process.argv.slice(2)],
  { stdout: "inherit", stderr: "inherit" },
);
console.log(
  [
    "",
    `kube-loom is running against a local control plane.`,
    `  health:     http://127.0.0.1:${port}/healthz  (also /livez, /readyz, /metrics)`,
    `  kubectl:    export KUBECONFIG=${controlPlane.kubeconfigPath}`,
    `  try:        kubectl apply -f deploy/examples/`,
    `  stop:       Ctrl-C`,
    "",
  ].join("\n"),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => kubeLoom.kill("SIGTERM"));
const code = await kubeLoom.exited;
await controlPlane.stop();
process.exit(code);
