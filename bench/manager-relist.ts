// The forced relist of a whole kube-loom process, not of one informer: the controllers of
// bench/cluster-scale.ts (replicaset and the garbage collector, so the Pod informer with the
// ReplicaSet controller's projection, ReplicaSets, ConfigMaps and a metadata monitor for every
// other resource) over its cluster, and every one of them relisting at once because kube-apiserver
// restarted with every older resourceVersion expired (cluster-scale/forced-relist.ts).
//
// The peak is divided by the RSS of the same process right before the restart, once it has synced
// and gone quiet; nothing else happens in between (cluster-scale.ts runs its relist after a restart
// and two bursts, and used to divide by the idle RSS of an earlier process). The peak is the
// kernel's high-water mark (VmHWM, reset just before the stop) until the process is quiet again;
// the 100 ms samples cluster-scale.ts takes are printed beside it. Each measurement is a fresh
// process; rounds are interleaved, who goes first alternating.
//   bun bench/manager-relist.ts [--pods 30000] [--replica-sets 300] [--namespaces 10] [--namespace-suffix ""] [--configmap-owners 300]
//     [--dependents 10] [--rounds 3] [--idle-seconds 20] [--state-dir DIR] [--baseline DIR]
// --state-dir keeps the seeded cluster, shared with cluster-scale.ts runs of the same shape.
// --baseline DIR: also measure another kube-loom source tree (e.g. `git archive main | tar -x -C DIR`),
// compiled by its own package.json's build, in the same rounds.
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient } from "../pkg/kube/client.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { compile } from "../test/support/kube-loom-binary.ts";
import { type BenchContext, type Measured, settleMaxMs, settleMinMs, startManager, syncTimeoutMs } from "./cluster-scale/context.ts";
import { restartApiserverExpiringWatches } from "./cluster-scale/forced-relist.ts";
import { peakRssWhile } from "./cluster-scale/manager-process.ts";
import { seedOnce } from "./cluster-scale/seed.ts";
import { shapeFrom, shapeOptions } from "./cluster-scale/shape.ts";
import { describeMachine } from "./machine.ts";
import { buildPeerProcesses, type PeerProcess } from "./peer-processes.ts";
import { printTable } from "./print-table.ts";
import { cpuSeconds, peakResidentMiB, residentMiB, resetPeakResident, waitForQuiet } from "./process-usage.ts";
import { median, ratio, Samples } from "./statistics.ts";

const { values } = parseArgs({
  options: {
    ...shapeOptions({ pods: 30_000, replicaSets: 300, configMapOwners: 300 }),
    rounds: { type: "string", default: "3" },
    "idle-seconds": { type: "string", default: "20" },
    "state-dir": { type: "string" },
    baseline: { type: "string" },
  },
});

const rounds = Number(values.rounds);
if (!Number.isSafeInteger(rounds) || rounds < 1) usage(`--rounds ${values.rounds}: expected a whole number ≥ 1`);
const idleSeconds = Number(values["idle-seconds"]);
if (!Number.isSafeInteger(idleSeconds) || idleSeconds < 0) usage(`--idle-seconds ${values["idle-seconds"]}: expected a whole number ≥ 0`);
const shape = shapeFrom(values);
const repoRoot = resolve(import.meta.dir, "..");
const baselineRoot = values.baseline === undefined ? undefined : resolve(values.baseline);
if (baselineRoot !== undefined && !existsSync(join(baselineRoot, "cmd/kube-loom/main.ts"))) usage(`--baseline ${values.baseline}: not a kube-loom source tree`);

const progress = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const buildDir = join(repoRoot, ".cache", "bench");
mkdirSync(buildDir, { recursive: true });

type Tree = "this tree" | "baseline";
const figures = ["steady", "peak", "sampled peak", "after", "cpu", "seconds"] as const;
type Figure = (typeof figures)[number];

const [controlPlane, peers, baselineExecutable] = await Promise.all([
  ControlPlane.start({ startTimeoutMs: 600_000, ...(values["state-dir"] ? { dir: values["state-dir"] } : {}) }),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller,garbage-collector-controller", "kube-loom": "replicaset,garbagecollector" }),
  baselineRoot === undefined ? undefined : buildBaseline(baselineRoot),
]);
const thisTree = peers.find((peer) => peer.system === "kube-loom") as PeerProcess;
const trees: { tree: Tree; peer: PeerProcess }[] = [{ tree: "this tree", peer: thisTree }];
// The same command line, the baseline's executable.
if (baselineExecutable !== undefined) trees.push({ tree: "baseline", peer: { ...thisTree, command: (kubeconfig, extra) => [baselineExecutable, ...thisTree.command(kubeconfig, extra).slice(1)] } });

const samples = new Samples<string>();
const loads: string[] = [];
try {
  const client = await createKubeClient(loadClientConfig({ kubeconfig: controlPlane.kubeconfigPath }), { qps: 0, burst: 0, timeoutMs: 120_000 });
  const logDir = join(controlPlane.dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const ctx: BenchContext = {
    controlPlane,
    client,
    shape,
    clientFlags: ["--kube-api-qps=500", "--kube-api-burst=1000"],
    idleSeconds,
    logDir,
    samples: new Samples<Measured>(),
    progress,
    runId: Date.now().toString(36).slice(-5),
  };
  await seedOnce(client, controlPlane.dir, shape, progress);
  for (let round = 1; round <= rounds; round++) {
    for (const { tree, peer } of round % 2 === 1 ? trees : [...trees].reverse()) await measure(ctx, tree, peer, round);
    loads.push(describeMachine().replace(/.*load average ([\d. ]+);.*/, "$1"));
  }
  printResults();
} finally {
  await controlPlane.stop();
}

async function measure(ctx: BenchContext, tree: Tree, peer: PeerProcess, round: number): Promise<void> {
  const manager = await startManager(ctx, peer, `relist-${tree.replace(" ", "-")}-${round}-${ctx.runId}`);
  try {
    await manager.monitorsSyncedAfter(syncTimeoutMs);
    await manager.settle(settleMinMs, settleMaxMs);
    // Idle a while first: the start's last garbage is collected, as it would be long before a real relist.
    await Bun.sleep(idleSeconds * 1000);
    await waitForQuiet([...ctx.controlPlane.pids, manager.pid]);
    const steady = residentMiB(manager.pid);
    resetPeakResident(manager.pid);
    const cpuBefore = cpuSeconds(manager.pid);
    const stoppedAt = performance.now();
    const { peakMiB } = await peakRssWhile(
      manager.pid,
      100,
      (async () => {
        await restartApiserverExpiringWatches(ctx.controlPlane, ctx.client);
        await manager.settle(settleMinMs, settleMaxMs);
      })(),
    );
    const measured: Record<Figure, number> = {
      steady,
      peak: peakResidentMiB(manager.pid),
      "sampled peak": peakMiB,
      after: residentMiB(manager.pid),
      cpu: cpuSeconds(manager.pid) - cpuBefore,
      seconds: (performance.now() - stoppedAt) / 1000,
    };
    for (const figure of figures) samples.record(figure, tree, measured[figure]);
    progress(`${tree} round ${round}: ${JSON.stringify(Object.fromEntries(figures.map((f) => [f, Number(measured[f].toFixed(1))])))}; peak / steady ${ratio(measured.peak, steady)}`);
  } finally {
    await manager.stop();
  }
}

async function buildBaseline(root: string): Promise<string> {
  if (!existsSync(join(root, "node_modules"))) symlinkSync(join(repoRoot, "node_modules"), join(root, "node_modules"));
  return compile("cmd/kube-loom/main.ts", join(buildDir, "kube-loom-relist-baseline"), root);
}

function printResults(): void {
  const rows = [["tree", "steady RSS MiB", "relist peak MiB", "sampled peak MiB", "RSS after MiB", "CPU s, stop until quiet", "peak / steady", "rounds peak / steady"]];
  for (const { tree } of trees) {
    const of = (figure: Figure) => samples.of(figure, tree);
    const perRound = of("peak").map((peak, i) => peak / (of("steady")[i] as number));
    rows.push([
      tree,
      median(of("steady")).toFixed(0),
      median(of("peak")).toFixed(0),
      median(of("sampled peak")).toFixed(0),
      median(of("after")).toFixed(0),
      median(of("cpu")).toFixed(2),
      `${median(perRound).toFixed(2)}×`,
      perRound.map((r) => `${r.toFixed(2)}×`).join(" "),
    ]);
  }
  console.log(
    `${shape.pods.toLocaleString("en-US")} Pods under ${shape.replicaSets} ReplicaSets in ${shape.namespaces} namespaces, ` +
      `${(shape.configMapOwners * (1 + shape.dependentsPerOwner)).toLocaleString("en-US")} ConfigMaps in trees; kube-loom --controllers=replicaset,garbagecollector; ` +
      `idle ${idleSeconds} s after the sync; medians of ${rounds} interleaved rounds, each a fresh process; load average after each round: ${loads.join(" | ")}`,
  );
  console.log(describeMachine());
  printTable(rows);
}

function usage(message: string): never {
  console.error(`${message}\nusage: bun bench/manager-relist.ts [--pods N] [--replica-sets N] [--namespaces N] [--namespace-suffix S] [--configmap-owners N] [--dependents N] [--rounds N] [--idle-seconds N] [--state-dir DIR] [--baseline DIR]`);
  process.exit(2);
}
