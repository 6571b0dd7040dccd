// kube-loom against kube-controller-manager v1.37 on a big cluster: 100,000 Pods under 1,000
// ReplicaSets in 10 namespaces, plus 1,000 ConfigMaps owning 10 each for the garbage collector.
// Both run the same controllers (replicaset and garbage collector) with the same client limits
// (qps 500 / burst 1000 unless --kube-api-qps / --kube-api-burst say otherwise: a ring's replicas
// each have their own budget, which shows only where the budget limits), a fresh process for each
// round, rounds interleaved, medians reported:
//   1. exec → first Pod of a ReplicaSet created right before exec; then, right after the sync, a
//      seeded ReplicaSet scaled up by one, timed from the write to its new Pod (live changes first)
//   2. RSS once idle, and peak RSS during a forced relist (kube-apiserver restarted with every
//      older resourceVersion expired: bench/cluster-scale/forced-relist.ts)
//   3. idle CPU
//   4. every ReplicaSet +10 %, then back: from the writes until every status shows the new size
//   5. a restart (SIGTERM, fresh process): Pods created or deleted across it (must be 0)
//   6. leader failover to a standby, kill -9 and SIGTERM: to the Lease and to the new leader's first Pod
// With --shards N, each round also runs N kube-loom replicas as one shard ring (ring-round.ts):
// idle RSS and CPU per replica, the burst, kill -9 of one, and joins; first with kube-apiserver
// filtering by shard (feature gate ShardedListAndWatch on), then, with the control plane started
// again over the same etcd data and the gate off, with each replica filtering (--shard-filters).
// Sharding is by namespace, so use many (shape.ts): --namespaces 100 (--namespace-suffix=-app
// named them to spread over the ring's slots before crowded slots were split; docs/sharding.md).
// Every manager process reaches kube-apiserver through a proxy of its own that counts the bytes
// it received (manager-process.ts says why not /proc/<pid>/io).
// The cluster is seeded through the API (no kubelet: Pods are created as the ReplicaSet controller
// creates them, then made Running and Ready through their status). Develop at a small scale:
//   bun bench/cluster-scale.ts --pods 5000 --replica-sets 100 --configmap-owners 100 --idle-seconds 30 --rounds 1
//   bun bench/cluster-scale.ts --pods 5000 --replica-sets 100 --namespaces 50 --namespace-suffix=-app --configmap-owners 100 --idle-seconds 30 --rounds 1 --shards 3
//   bun bench/cluster-scale.ts [--pods 100000] [--replica-sets 1000] [--namespaces 10] [--namespace-suffix ""] [--configmap-owners 1000]
//     [--dependents 10] [--rounds 3] [--idle-seconds 120] [--log-dir DIR] [--no-failover] [--no-relist] [--state-dir DIR]
//     [--shards 0] [--shard-filters server,client] [--kube-api-qps 500] [--kube-api-burst 1000]
// --state-dir keeps etcd's data (and the control plane's folder) there after the run, and a later
// run with the same shape and folder starts from it instead of seeding again (half an hour at
// 100,000 Pods on a busy 2-core machine).
import { chmodSync, copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../pkg/kube/client.ts";
import { createOwnedTempDir } from "../pkg/testing/owned-temp-dir.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { buildKubeLoom } from "../test/support/kube-loom-binary.ts";
import { type Comparison, mebibytes, printComparison, seconds } from "./comparison.ts";
import { buildPeerProcesses, comparisonOf, type PeerProcess, type System } from "./peer-processes.ts";
import { Samples } from "./statistics.ts";
import { scaleAll } from "./cluster-scale/burst.ts";
import { type BenchContext, type Measured, startManager, syncTimeoutMs } from "./cluster-scale/context.ts";
import { measureFailover } from "./cluster-scale/failover.ts";
import { ReplicaSetConvergence } from "./cluster-scale/replicaset-convergence.ts";
import { printRingResults } from "./cluster-scale/ring-results.ts";
import { measureRing } from "./cluster-scale/ring-round.ts";
import { apiserverFilterArgs, ringVariant, type ShardFilter } from "./cluster-scale/ring-variant.ts";
import { measureRound } from "./cluster-scale/round.ts";
import { seedOnce, type SeedTimes } from "./cluster-scale/seed.ts";
import { namespaceNames, podsPerReplicaSet, shapeFrom, shapeOptions } from "./cluster-scale/shape.ts";

const { values } = parseArgs({
  options: {
    ...shapeOptions({ pods: 100_000, replicaSets: 1000, configMapOwners: 1000 }),
    rounds: { type: "string", default: "3" },
    "idle-seconds": { type: "string", default: "120" },
    "log-dir": { type: "string" },
    "no-failover": { type: "boolean", default: false },
    "no-relist": { type: "boolean", default: false },
    "state-dir": { type: "string" },
    shards: { type: "string", default: "0" },
    "shard-filters": { type: "string", default: "server,client" },
    "kube-api-qps": { type: "string", default: "500" },
    "kube-api-burst": { type: "string", default: "1000" },
  },
});

const shape = shapeFrom(values);
// --rounds 0 seeds the cluster (into --state-dir, to be reused) and measures nothing.
const rounds = wholeNumber("--rounds", values.rounds, 0);
const idleSeconds = wholeNumber("--idle-seconds", values["idle-seconds"], 1);
const shards = wholeNumber("--shards", values.shards, 0);
// Every manager's client limits, singleton or replica, kube-controller-manager's too.
const qps = wholeNumber("--kube-api-qps", values["kube-api-qps"], 1);
const burst = wholeNumber("--kube-api-burst", values["kube-api-burst"], 1);
// The rings' filters in the order measured; the first one's control plane also serves the singletons.
const filters = shards === 0 ? [] : shardFilters(values["shard-filters"] ?? "");
const progress = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
// A second control plane start (the other filter) needs etcd's data to outlive the first.
const stateDir = values["state-dir"] ?? (filters.length > 1 ? createOwnedTempDir() : undefined);

const [firstControlPlane, builtPeers] = await Promise.all([
  startControlPlane(filters[0]),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller,garbage-collector-controller", "kube-loom": "replicaset,garbagecollector" }),
]);
let controlPlane = firstControlPlane;
// A signal still stops the control plane and removes its folder (the exit handlers do both).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));
const logDir = values["log-dir"] ?? join(controlPlane.dir, "logs");
mkdirSync(logDir, { recursive: true });
const peers = await withPrivateKubeLoom(builtPeers, controlPlane.dir);
progress(`control plane in ${controlPlane.dir}, controller logs in ${logDir}`);

try {
  const ctx: BenchContext = {
    controlPlane,
    client: await benchClient(controlPlane),
    shape,
    clientFlags: [`--kube-api-qps=${qps}`, `--kube-api-burst=${burst}`],
    idleSeconds,
    logDir,
    samples: new Samples<Measured>(),
    progress,
    runId: Date.now().toString(36).slice(-5),
  };
  const seeding = await seedOnce(ctx.client, ctx.controlPlane.dir, ctx.shape, progress);
  progress(`etcd database after seeding: ${await etcdDatabaseMiB(controlPlane.etcdUrl)} MiB`);
  await settleStatuses(ctx, peers);
  const kubeLoom = peers.find((peer) => peer.system === "kube-loom") as PeerProcess;
  for (let round = 1; round <= rounds; round++) {
    // Interleaved, and each system goes first every other round.
    const order = round % 2 === 1 ? peers : [...peers].reverse();
    for (const peer of order) await measureRound(ctx, peer, round, { relist: !values["no-relist"] });
    if (filters[0]) await measureRing(ctx, kubeLoom, filters[0], shards, round);
    if (values["no-failover"]) continue;
    for (const signal of ["SIGKILL", "SIGTERM"] as const) {
      for (const peer of order) await measureFailover(ctx, peer, signal, round);
    }
  }
  for (const filter of rounds > 0 ? filters.slice(1) : []) {
    await controlPlane.stop();
    controlPlane = ctx.controlPlane = await startControlPlane(filter);
    ctx.client = await benchClient(controlPlane);
    for (let round = 1; round <= rounds; round++) await measureRing(ctx, kubeLoom, filter, shards, round);
  }
  progress(`etcd database at the end: ${await etcdDatabaseMiB(controlPlane.etcdUrl)} MiB (quota 2048 MiB)`);
  if (rounds > 0) printResults(ctx, seeding);
  if (rounds > 0 && filters.length > 0) printRingResults(ctx, filters.map(ringVariant), shards);
} finally {
  await controlPlane.stop();
}

/**
 * etcd and kube-apiserver, the gate set for `filter` (unset without a ring). kube-apiserver fills
 * its watch cache with every Pod before it is ready: minutes on a busy machine.
 */
function startControlPlane(filter: ShardFilter | undefined): Promise<ControlPlane> {
  const extraApiserverArgs = filter ? apiserverFilterArgs(filter) : [];
  progress(`starting the control plane${filter ? ` (${extraApiserverArgs.join(" ")})` : ""}`);
  return ControlPlane.start({ extraApiserverArgs, startTimeoutMs: 600_000, ...(stateDir ? { dir: stateDir } : {}) });
}

/** The benchmark's own client has no rate limit: the API server is what should limit seeding and bursts. */
function benchClient(plane: ControlPlane): Promise<KubeClient> {
  return createKubeClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: 0, burst: 0, timeoutMs: 120_000 });
}

function shardFilters(text: string): ShardFilter[] {
  const list = text.split(",").filter((word) => word !== "");
  for (const word of list) if (word !== "server" && word !== "client") throw new Error(`--shard-filters ${text}: expected server and/or client, comma-separated`);
  if (list.length === 0) throw new Error("--shard-filters: expected server and/or client");
  return list as ShardFilter[];
}

function wholeNumber(flag: string, text: string | undefined, least: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least) throw new Error(`${flag} ${text}: expected a whole number ≥ ${least}`);
  return value;
}

/**
 * Runs kube-loom from a copy of its own: a build from newer sources (another test run in the same
 * tree) deletes the older executable, which this benchmark starts again and again for an hour.
 */
async function withPrivateKubeLoom(all: PeerProcess[], dir: string): Promise<PeerProcess[]> {
  const built = await buildKubeLoom();
  const copy = join(dir, "kube-loom");
  copyFileSync(built, copy);
  chmodSync(copy, 0o755);
  return all.map((peer) => ({ ...peer, command: (kubeconfig, extra) => peer.command(kubeconfig, extra).map((word) => (word === built ? copy : word)) }));
}

async function etcdDatabaseMiB(etcdUrl: string): Promise<string> {
  const metrics = await (await fetch(`${etcdUrl}/metrics`)).text();
  const bytes = Number(/^etcd_mvcc_db_total_size_in_bytes (\S+)$/m.exec(metrics)?.[1]);
  return (bytes / 2 ** 20).toFixed(0);
}

/**
 * Lets kube-controller-manager write every seeded ReplicaSet's status once (not measured), so
 * no round starts with 1,000 status writes the seeding left to do.
 */
async function settleStatuses(ctx: BenchContext, all: PeerProcess[]): Promise<void> {
  const upstream = all.find((peer) => peer.system === "kube-controller-manager") as PeerProcess;
  const seeded = new Set(namespaceNames(ctx.shape));
  const tracker = await ReplicaSetConvergence.start(ctx.client, (rs) => seeded.has(rs.metadata?.namespace ?? ""));
  const manager = await startManager(ctx, upstream, `status-warm-up-${ctx.runId}`);
  try {
    const started = performance.now();
    // A run stopped in the middle of a burst leaves the ReplicaSets bigger.
    await scaleAll(ctx, podsPerReplicaSet(ctx.shape));
    await tracker.convergedOn(() => podsPerReplicaSet(ctx.shape), syncTimeoutMs);
    progress(`every ReplicaSet's status written by kube-controller-manager in ${((performance.now() - started) / 1000).toFixed(1)} s (not measured)`);
  } finally {
    await Promise.all([tracker.close(), manager.stop()]);
  }
}

function printResults(ctx: BenchContext, seeding: SeedTimes): void {
  const row = (scenario: string, figure: string, format: (value: number) => string = seconds): Comparison => comparisonOf(ctx.samples, scenario, figure, { format });
  const total = (scenario: string, figure: string): Comparison => {
    const sum = (system: System) => [ctx.samples.of(figure, system).reduce((a, b) => a + b, 0)];
    return { scenario, upstream: sum("kube-controller-manager"), kubeLoom: sum("kube-loom"), format: (value) => value.toFixed(0) };
  };
  const cpu = (value: number) => `${value.toFixed(2)} CPU s`;
  const perReplicaSet = podsPerReplicaSet(ctx.shape);
  const step = Math.round(perReplicaSet / 10);
  const burstPods = step * ctx.shape.replicaSets;
  const failoverRows = values["no-failover"]
    ? []
    : (["SIGKILL", "SIGTERM"] as const).flatMap((signal) => {
        const name = signal === "SIGKILL" ? "kill -9" : "SIGTERM";
        return [row(`failover, ${name}: to the Lease`, `failover ${signal} lease`), row(`failover, ${name}: to the new leader's first Pod`, `failover ${signal} pod`)];
      });
  // --no-relist measures no relist: its rows would hold no samples.
  const relistRows = values["no-relist"]
    ? []
    : [
        row("forced relist: RSS right before the stop (after the restart and the bursts)", "relist rss before", mebibytes),
        row("forced relist: peak RSS", "relist rss", mebibytes),
        row("same: peak / RSS right before, same process", "relist peak over before", (value) => `${value.toFixed(2)}×`),
        row("forced relist: CPU, restart until quiet", "relist cpu", cpu),
      ];
  printComparison(
    [
      row("exec → first Pod of a new ReplicaSet", "first pod"),
      row("exec → garbage collector's monitors synced", "synced"),
      row("kube-apiserver CPU from exec to the monitors synced", "apiserver sync cpu", cpu),
      row("right after the sync, a ReplicaSet scaled up: the write → its new Pod", "live scale"),
      row("RSS once idle", "idle rss", mebibytes),
      row("idle CPU", "idle cpu", (value) => `${value.toFixed(2)} CPU s/min`),
      ...relistRows,
      row(`burst: every ReplicaSet ${perReplicaSet} → ${perReplicaSet + step} (${burstPods} Pods)`, "burst up"),
      row("same: controller CPU", "burst up cpu", cpu),
      row(`same: the benchmark's ${ctx.shape.replicaSets} scale writes`, "burst up writes"),
      row(`burst: every ReplicaSet ${perReplicaSet + step} → ${perReplicaSet}`, "burst down"),
      row("same: controller CPU", "burst down cpu", cpu),
      row(`same: the benchmark's ${ctx.shape.replicaSets} scale writes`, "burst down writes"),
      row("restart: exec → monitors synced", "restart synced"),
      total("restart: Pods created, all rounds", "restart pods created"),
      total("restart: Pods deleted, all rounds", "restart pods deleted"),
      total("restart: ReplicaSet updates, all rounds", "restart replicaset writes"),
      ...failoverRows,
    ],
    `${ctx.shape.pods.toLocaleString("en-US")} Pods under ${ctx.shape.replicaSets.toLocaleString("en-US")} ReplicaSets in ${ctx.shape.namespaces} namespaces, ` +
      `${(ctx.shape.configMapOwners * (1 + ctx.shape.dependentsPerOwner)).toLocaleString("en-US")} ConfigMaps in trees; controllers replicaset + garbage collector, ` +
      `qps ${qps} / burst ${burst}; medians of ${rounds} interleaved rounds (counts: totals); idle window ${ctx.idleSeconds} s; ` +
      `a burst's ${burstPods} creates take at least ${(Math.max(0, burstPods - burst) / qps).toFixed(1)} s at qps ${qps} / burst ${burst}; ` +
      `seeding: ReplicaSets ${seeding.replicaSetsSeconds.toFixed(1)} s, Pods created and Ready ${seeding.podsSeconds.toFixed(1)} s, ConfigMaps ${seeding.configMapsSeconds.toFixed(1)} s`,
  );
}
