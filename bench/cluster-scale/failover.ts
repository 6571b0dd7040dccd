// Figure 6: leader failover with a standby, two processes of the same kind with leader election
// on. The leader is stopped (kill -9, or SIGTERM) and right after it a ReplicaSet is scaled from
// 1 to 2; timed from the signal to the new leader holding the Lease, and to the first Pod the new
// leader creates for that ReplicaSet: the first reconcile, not just the election.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { type ReplicaSet, replicaSetManifest } from "../../test/replicaset/replicaset-fixture.ts";
import { waitUntil } from "../../test/support/eventually.ts";
import type { PeerProcess } from "../peer-processes.ts";
import { type BenchContext, settleMaxMs, startManager, syncTimeoutMs, tagOf } from "./context.ts";
import type { ManagerProcess } from "./manager-process.ts";
import { firstPodCreated } from "./resource-events.ts";
import { probeNamespace } from "./shape.ts";

export type StopSignal = "SIGKILL" | "SIGTERM";

type Lease = KubeObject & { spec?: { holderIdentity?: string } };

export async function measureFailover(ctx: BenchContext, peer: PeerProcess, signal: StopSignal, round: number): Promise<void> {
  const run = `${tagOf(peer.system)}-${signal === "SIGKILL" ? "kill" : "term"}-${round}-${ctx.runId}`;
  const lease = `bench-${run}`;
  const electionFlags = ["--leader-elect=true", `--leader-elect-resource-name=${lease}`];
  const leader = await startLeader(ctx, peer, run, electionFlags);
  const firstHolder = await holderOf(ctx.client, lease);
  const standby = await startManager(ctx, peer, `${run}-standby`, electionFlags);
  try {
    // A standby that fills its caches before it leads has done so once it is quiet.
    await standby.settle(5_000, syncTimeoutMs);
    const newPod = await firstPodCreated(ctx.client, probeNamespace, `app=${run}`, syncTimeoutMs);
    try {
      const stoppedAt = performance.now();
      leader.daemon.kill(signal);
      const leaderGoneAt = leader.daemon.exited.then(() => performance.now());
      const leaseAt = newHolderAt(ctx.client, lease, firstHolder);
      await ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, probeNamespace).patch(run, { spec: { replicas: 2 } }, "merge");
      const podAt = await standby.unlessExited(newPod.at);
      const toLease = ((await leaseAt) - stoppedAt) / 1000;
      const toPod = (podAt - stoppedAt) / 1000;
      const oldLeaderLast = (await leaderGoneAt) > podAt ? " (the old leader had not exited yet when the Pod appeared)" : "";
      ctx.samples.record(`failover ${signal} lease`, peer.system, toLease);
      ctx.samples.record(`failover ${signal} pod`, peer.system, toPod);
      ctx.progress(`${peer.system} ${signal} round ${round}: new leader holds the Lease after ${toLease.toFixed(2)} s, first Pod after ${toPod.toFixed(2)} s${oldLeaderLast}`);
    } finally {
      await newPod.close();
    }
  } finally {
    await Promise.all([leader.stop("SIGKILL"), standby.stop("SIGKILL")]);
  }
}

/** Starts the leader with a ReplicaSet of one Pod to look after; returns once it has created that Pod and gone quiet. */
async function startLeader(ctx: BenchContext, peer: PeerProcess, run: string, electionFlags: string[]): Promise<ManagerProcess> {
  const firstPod = await firstPodCreated(ctx.client, probeNamespace, `app=${run}`, syncTimeoutMs);
  await ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, probeNamespace).create(replicaSetManifest({ name: run, namespace: probeNamespace, replicas: 1 }));
  const leader = await startManager(ctx, peer, `${run}-leader`, electionFlags);
  try {
    await leader.unlessExited(firstPod.at);
    await leader.settle(1_000, settleMaxMs);
    return leader;
  } catch (err) {
    await leader.stop("SIGKILL");
    throw err;
  } finally {
    await firstPod.close();
  }
}

async function holderOf(client: KubeClient, lease: string): Promise<string> {
  const leases = client.dynamic.resource<Lease>(resources.leases, "kube-system");
  return leases.get(lease).then((l) => l.spec?.holderIdentity ?? "", () => "");
}

/** performance.now() when the Lease first names a holder other than `previous` (polled every 25 ms). */
async function newHolderAt(client: KubeClient, lease: string, previous: string): Promise<number> {
  await waitUntil(
    async () => {
      const holder = await holderOf(client, lease);
      return holder !== "" && holder !== previous;
    },
    `a new holder of Lease ${lease}`,
    syncTimeoutMs,
    25,
  );
  return performance.now();
}
