// Kubernetes' own e2e tests for the controllers kube-loom replaces, run against kube-loom on a
// local cluster (test/controlplane/local-cluster.ts: kube-controller-manager without those
// controllers, kube-scheduler, kwok playing the Node). Not part of the suite: the e2e binary
// takes about 10 minutes to build the first time and the specs about 15 to run.
//   bun test/upstream-e2e.ts [--replicas 3] [--leader-elect] [--server-filter off] [--focus RE] [--skip RE] [--procs 4]
// By default three replicas in one shard ring (--shard-ring), the API server filtering by shard
// (the ShardedListAndWatch gate on); --leader-elect runs them under leader election instead.
// Exits 0 when every spec that ran passed, or failed only where kube-controller-manager fails
// on this cluster too (`failsWithoutKubelets`).
import { mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ensureGoBinary, type GoBinary } from "../pkg/testing/go-build.ts";
import { binaryCacheDir, KUBERNETES_VERSION } from "./controlplane/binaries.ts";
import { spawnDaemon, stopDaemon } from "./controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "./controlplane/free-ports.ts";
import { LocalCluster } from "./controlplane/local-cluster.ts";

/** The release whose e2e suite tools/kubernetes-e2e pins. */
const E2E_VERSION = "v1.37.2";
const GINKGO_VERSION = "v2.32.0";
const repoRoot = resolve(import.meta.dir, "..");
const moduleDir = join(repoRoot, "tools", "kubernetes-e2e", E2E_VERSION);

const defaultFocus = String.raw`\[sig-apps\] (ReplicaSet|Deployment|ReplicationController|DisruptionController)|\[sig-api-machinery\] Garbage collector`;
// Disruptive and slow specs, and those behind feature gates the local cluster does not turn on.
const defaultSkip = String.raw`\[Disruptive\]|\[Flaky\]|\[Slow\]|\[Feature:`;

/**
 * Specs that fail on this cluster with kube-controller-manager's own controllers as well (checked
 * 2026-11-28): kwok runs no containers, so nothing answers HTTP, a Pod whose image does not exist
 * turns Ready like any other, and readiness probes are not run (no Pod is ever unready).
 */
const failsWithoutKubelets = [
  /^\[sig-apps\] (ReplicaSet|ReplicationController) should serve a basic image on each replica with a public image /,
  /^\[sig-apps\] Deployment deployment should support proportional scaling /,
  /^\[sig-apps\] DisruptionController should (not )?evict (un)?ready pods with \w+ UnhealthyPodEvictionPolicy/,
];

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    replicas: { type: "string", default: "3" },
    "leader-elect": { type: "boolean", default: false },
    "server-filter": { type: "string", default: "on" },
    focus: { type: "string", default: defaultFocus },
    skip: { type: "string", default: defaultSkip },
    procs: { type: "string", default: "4" },
  },
});
const replicas = Number(values.replicas);
const procs = Number(values.procs);
const serverFilter = values["server-filter"];
if (!Number.isInteger(replicas) || replicas < 1 || !Number.isInteger(procs) || procs < 1 || (serverFilter !== "on" && serverFilter !== "off")) {
  console.error(`upstream-e2e: --replicas and --procs take a whole number ≥ 1 and --server-filter on or off (got ${values.replicas}, ${values.procs}, ${serverFilter})`);
  process.exit(2);
}
if (KUBERNETES_VERSION !== E2E_VERSION) {
  console.error(`upstream-e2e: the e2e suite is pinned at ${E2E_VERSION}, and runs against that release only (KUBE_VERSION gives ${KUBERNETES_VERSION})`);
  process.exit(2);
}

const log = (message: string) => console.error(`upstream-e2e: ${message}`);
const pinnedBinary = (name: string, version: string, goPackage: string, kind: GoBinary["kind"], firstBuildTime: string): GoBinary => ({ name, version, moduleDir, goPackage, kind, ldflags: "-s -w", firstBuildTime });
const e2eTest = await ensureGoBinary(pinnedBinary("e2e.test", E2E_VERSION, "k8s.io/kubernetes/test/e2e", "tests", "11 min"), binaryCacheDir, log);
const ginkgo = await ensureGoBinary(pinnedBinary("ginkgo", GINKGO_VERSION, "github.com/onsi/ginkgo/v2/ginkgo", "program", "20 s"), binaryCacheDir, log);
const build = Bun.spawnSync(["./node_modules/.bin/bun", "run", "build"], { cwd: repoRoot, stdout: "ignore", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const cluster = await LocalCluster.start(serverFilter === "on" ? { extraApiserverArgs: ["--feature-gates=ShardedListAndWatch=true"] } : {});
const { controlPlane } = cluster;
const mode = values["leader-elect"] ? ["--leader-elect=true"] : ["--shard-ring=e2e"];
// Kept after the run, unlike the cluster's own folder.
const runDir = join(repoRoot, ".cache", "upstream-e2e", new Date().toISOString().replace(/[:.]/g, "-"));
const reportDir = join(runDir, "report");
mkdirSync(reportDir, { recursive: true });
const names = Array.from({ length: replicas }, (_, i) => `kube-loom-${i}`);
const ports = await freeLoopbackPorts(names);
const kubeLooms = names.map((name) =>
  spawnDaemon(
    [join(repoRoot, "dist", "kube-loom"), `--kubeconfig=${controlPlane.kubeconfigPath}`, "--bind-address=127.0.0.1", `--secure-port=${ports[name]}`, ...mode],
    join(runDir, `${name}.log`),
  ),
);
// ginkgo takes a compiled suite only by a name ending in ".test".
const suite = join(runDir, "e2e.test");
symlinkSync(e2eTest, suite);
log(`${replicas} kube-loom (${mode.join(" ")}), server filter ${serverFilter}; logs in ${runDir}`);

let exitCode = 1;
try {
  const run = spawnDaemon(
    [
      ginkgo, "--no-color", `--procs=${procs}`, "--timeout=90m", `--focus=${values.focus}`, `--skip=${values.skip}`,
      `--json-report=report.json`, `--output-dir=${reportDir}`, suite, "--",
      `--kubeconfig=${controlPlane.kubeconfigPath}`, "--provider=skeleton", `--report-dir=${reportDir}`,
    ],
    join(runDir, "e2e.log"),
  );
  await run.exited;
  exitCode = summarize(join(reportDir, "report.json"));
} finally {
  await Promise.all(kubeLooms.map((kubeLoom) => stopDaemon(kubeLoom, "SIGTERM", 20_000)));
  await cluster.stop();
}
process.exit(exitCode);

interface SpecReport {
  ContainerHierarchyTexts: string[] | null;
  LeafNodeType: string;
  LeafNodeText: string;
  State: string;
}

/** Prints what ran, passed and failed; 0 when the only failures are the ones kube-controller-manager has here too. */
function summarize(reportPath: string): number {
  let specs: SpecReport[];
  try {
    specs = (JSON.parse(readFileSync(reportPath, "utf8")) as { SpecReports: SpecReport[] }[]).flatMap((suite) => suite.SpecReports);
  } catch (error) {
    log(`no report at ${reportPath} (${error instanceof Error ? error.message : String(error)}); ginkgo's output: ${join(runDir, "e2e.log")}, files: ${readdirSync(reportDir).join(", ")}`);
    return 1;
  }
  // Besides the specs, a suite's setup and teardown nodes (SynchronizedBeforeSuite, …) report here too.
  const ran = specs.filter((spec) => spec.State !== "skipped" && spec.LeafNodeType === "It");
  const title = (spec: SpecReport) => [...(spec.ContainerHierarchyTexts ?? []), spec.LeafNodeText || spec.LeafNodeType].join(" ");
  const failed = specs.filter((spec) => spec.State !== "skipped" && spec.State !== "passed").map((spec) => `${title(spec)} (${spec.State})`);
  const unexpected = failed.filter((line) => !failsWithoutKubelets.some((known) => known.test(line)));
  console.log(`ran ${ran.length}, failed ${failed.length} (${failed.length - unexpected.length} of them fail with kube-controller-manager on this cluster too)`);
  for (const line of failed) console.log(`  ${unexpected.includes(line) ? "FAILED" : "failed (no kubelet)"}: ${line}`);
  return unexpected.length === 0 ? 0 : 1;
}
