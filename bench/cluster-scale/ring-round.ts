// The sharded mode's round: N kube-loom replicas of one shard ring (--shard-ring), each with its
// own client limits, against the same cluster as the singleton:
//   1. exec → every replica's monitors synced, and → the ring settled (every slot held where assigned)
//   2. idle RSS and CPU of each replica, and the bytes each received since exec (idle.ts)
//   3. the burst (burst.ts), all replicas acting at once
//   4. kill -9 of one replica, then right away one ReplicaSet scaled up by one in each namespace
//      it held: from the kill to the first new Pod there (its namespaces' first reconcile)
//   5. joins: a replica started in the dead one's place (N-1 → N), then one more (N → N+1); the
//      namespaces whose holder changed between the settled tables before and after
import { resources } from "../../pkg/kube/gvr.ts";
import { inParallel } from "../../test/integration/informer-fixtures.ts";
import type { ReplicaSet } from "../../test/replicaset/replicaset-fixture.ts";
import type { PeerProcess } from "../peer-processes.ts";
import { measureBurst } from "./burst.ts";
import { type BenchContext, startManager, syncTimeoutMs } from "./context.ts";
import { measureIdle } from "./idle.ts";
import type { ManagerProcess } from "./manager-process.ts";
import { firstPodPerNamespace } from "./resource-events.ts";
import { filterLogLine, ringVariant, type ShardFilter } from "./ring-variant.ts";
import { namespaceNames, podsPerReplicaSet, replicaSetAt } from "./shape.ts";
import { namespacesHeld, namespacesMoved, ShardRingView } from "./shard-ring-view.ts";

/** kube-loom's default --leader-elect-lease-duration, which the ring's members are timed by. */
export const ringLeaseSeconds = 15;

export async function measureRing(ctx: BenchContext, peer: PeerProcess, filter: ShardFilter, replicas: number, round: number): Promise<void> {
  const who = ringVariant(filter);
  const view = new ShardRingView(ctx.client, `bench-${filter}-${round}-${ctx.runId}`);
  const running: ManagerProcess[] = [];
  let started = 0;
  const startReplica = async () => {
    const replica = await startManager(ctx, peer, `${view.ring}-${started++}`, [`--shard-ring=${view.ring}`]);
    running.push(replica);
    return replica;
  };
  try {
    for (let i = 0; i < replicas; i++) await startReplica();
    const syncedSeconds = await Promise.all(running.map((replica) => replica.monitorsSyncedAfter(syncTimeoutMs)));
    const table = await view.settled(replicas, syncTimeoutMs);
    const settledSeconds = (performance.now() - (running[0] as ManagerProcess).execAt) / 1000;
    const shares = running.map((replica) => namespacesHeld(table, memberOf(replica), namespaceNames(ctx.shape)).length);
    for (const seconds of syncedSeconds) ctx.samples.record("ring synced", who, seconds);
    for (const share of shares) ctx.samples.record("ring namespaces", who, share);
    ctx.samples.record("ring settled", who, settledSeconds);
    ctx.progress(
      `${who}: ${replicas} replicas' monitors synced ${syncedSeconds.map((s) => s.toFixed(2)).join(" / ")} s after exec; ring settled after ${settledSeconds.toFixed(2)} s; ` +
        `namespaces held ${shares.join(" / ")}`,
    );
    for (const replica of running) expectFilter(replica, filter);
    await measureIdle(ctx, who, running);
    await measureBurst(ctx, who, running);
    await measureKill(ctx, view, running, filter);
    await measureJoin(ctx, view, startReplica, filter);
    await measureJoin(ctx, view, startReplica, filter);
  } finally {
    await Promise.all(running.map((replica) => replica.stop()));
  }
}

/** Fails the round when the replicas filter otherwise than asked: the figures would be mislabelled. */
function expectFilter(replica: ManagerProcess, filter: ShardFilter): void {
  if (!filterLogLine(filter).test(replica.logs())) throw new Error(`replica pid ${replica.pid} did not log ${filterLogLine(filter).source} (log ${replica.logPath})`);
}

/** The member Lease a replica last joined the ring under, from its log. */
function memberOf(replica: ManagerProcess): string {
  const joined = [...replica.logs().matchAll(/"member":"([^"]+)","msg":"joined the shard ring"/g)].at(-1);
  if (!joined) throw new Error(`replica pid ${replica.pid} has not joined its ring (log ${replica.logPath})`);
  return joined[1] as string;
}

/** Figure 4 of the ring: kill -9 of its last replica (it leaves `running`). */
async function measureKill(ctx: BenchContext, view: ShardRingView, running: ManagerProcess[], filter: ShardFilter): Promise<void> {
  const who = ringVariant(filter);
  const victim = running.pop() as ManagerProcess;
  const member = memberOf(victim);
  const table = await view.table();
  const orphaned = namespacesHeld(table, member, namespaceNames(ctx.shape));
  ctx.progress(`${who}: killing ${member} (pid ${victim.pid}), holding ${table.holders.filter((holder) => holder === member).length} slots and ${orphaned.length} namespaces`);
  // One seeded ReplicaSet in each orphaned namespace: the i-th lives in the i-th namespace.
  const scaled = Array.from({ length: ctx.shape.namespaces }, (_, i) => replicaSetAt(ctx.shape, i)).filter((rs) => orphaned.includes(rs.namespace));
  const scaleTo = async (replicas: number) =>
    inParallel(scaled, 16, ({ namespace, name }) => ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).patch(name, { spec: { replicas } }, "merge"));
  const firstPods = await firstPodPerNamespace(ctx.client, orphaned, syncTimeoutMs);
  try {
    const killedAt = performance.now();
    victim.daemon.kill("SIGKILL");
    await scaleTo(podsPerReplicaSet(ctx.shape) + 1);
    const seconds = [...(await firstPods.all).values()].map((at) => (at - killedAt) / 1000).sort((a, b) => a - b);
    ctx.samples.record("kill namespaces", who, orphaned.length);
    const [first, last] = [seconds[0], seconds.at(-1)];
    if (first !== undefined && last !== undefined) {
      ctx.samples.record("kill first", who, first);
      ctx.samples.record("kill last", who, last);
      ctx.progress(`${who}: kill -9: first reconcile in its namespaces ${first.toFixed(2)} s after the kill, in the last of them ${last.toFixed(2)} s`);
    }
  } finally {
    await firstPods.close();
    await victim.stop("SIGKILL");
  }
  await view.settled(running.length, syncTimeoutMs);
  await scaleTo(podsPerReplicaSet(ctx.shape));
}

/** Figure 5 of the ring: one replica more; the share of the seeded namespaces whose holder changed. */
async function measureJoin(ctx: BenchContext, view: ShardRingView, startReplica: () => Promise<ManagerProcess>, filter: ShardFilter): Promise<void> {
  const who = ringVariant(filter);
  const namespaces = namespaceNames(ctx.shape);
  const before = await view.table();
  const members = (await view.members()).length;
  const joiner = await startReplica();
  const after = await view.settled(members + 1, syncTimeoutMs);
  const seconds = (performance.now() - joiner.execAt) / 1000;
  const moved = namespacesMoved(before, after, namespaces).length / namespaces.length;
  ctx.samples.record(`join ${members + 1} moved`, who, moved);
  ctx.samples.record(`join ${members + 1} settled`, who, seconds);
  ctx.progress(`${who}: join ${members} → ${members + 1}: ${(moved * 100).toFixed(1)} % of ${namespaces.length} namespaces moved (ideal ${(100 / (members + 1)).toFixed(1)} %); settled ${seconds.toFixed(2)} s after exec`);
}
