// One round of the scale benchmark for one controller manager, each step in a fresh process or
// the one the step before left running: start with a new ReplicaSet waiting, idle, restart,
// burst, forced relist.
import { resources } from "../../pkg/kube/gvr.ts";
import { type ReplicaSet, replicaSetManifest } from "../../test/replicaset/replicaset-fixture.ts";
import type { PeerProcess } from "../peer-processes.ts";
import { cpuSeconds, peakResidentMiB, residentMiB, resetPeakResident, waitForQuiet } from "../process-usage.ts";
import { measureBurst } from "./burst.ts";
import { type BenchContext, settleMaxMs, settleMinMs, startManager, syncTimeoutMs, tagOf } from "./context.ts";
import { restartApiserverExpiringWatches } from "./forced-relist.ts";
import { measureIdle } from "./idle.ts";
import { type ManagerProcess, peakRssWhile } from "./manager-process.ts";
import { ChangeCounter, firstPodCreated } from "./resource-events.ts";
import { namespaceNames, probeNamespace, replicaSetAt } from "./shape.ts";

/** `relist`: end with the forced relist, which restarts kube-apiserver (minutes at 100,000 Pods). */
export async function measureRound(ctx: BenchContext, peer: PeerProcess, round: number, steps: { relist: boolean }): Promise<void> {
  let manager = await startWithNewReplicaSet(ctx, peer, round);
  try {
    await measureLiveChange(ctx, manager);
    await measureIdle(ctx, peer.system, [manager]);
    manager = await measureRestart(ctx, peer, manager, round);
    await measureBurst(ctx, peer.system, [manager]);
    if (steps.relist) await measureForcedRelist(ctx, manager);
  } finally {
    await manager.stop();
  }
}

/** Figure 1: a ReplicaSet created right before exec, timed from exec to its first Pod. */
async function startWithNewReplicaSet(ctx: BenchContext, peer: PeerProcess, round: number): Promise<ManagerProcess> {
  const name = `first-${tagOf(peer.system)}-${round}-${ctx.runId}`;
  const firstPod = await firstPodCreated(ctx.client, probeNamespace, `app=${name}`, syncTimeoutMs);
  await ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, probeNamespace).create(replicaSetManifest({ name, namespace: probeNamespace, replicas: 1 }));
  // What the manager's lists and streams cost the API server: its CPU from exec until the monitors synced.
  const apiserverPid = ctx.controlPlane.pids.at(-1) ?? 0;
  const apiserverCpuBefore = cpuSeconds(apiserverPid);
  const manager = await startManager(ctx, peer, `${tagOf(peer.system)}-${round}-start-${ctx.runId}`);
  try {
    const firstPodSeconds = ((await manager.unlessExited(firstPod.at)) - manager.execAt) / 1000;
    const syncedSeconds = await manager.monitorsSyncedAfter(syncTimeoutMs);
    const apiserverCpu = cpuSeconds(apiserverPid) - apiserverCpuBefore;
    ctx.samples.record("first pod", peer.system, firstPodSeconds);
    ctx.samples.record("synced", peer.system, syncedSeconds);
    ctx.samples.record("apiserver sync cpu", peer.system, apiserverCpu);
    ctx.progress(
      `${peer.system} round ${round}: exec → first Pod of a new ReplicaSet ${firstPodSeconds.toFixed(2)} s, monitors synced ${syncedSeconds.toFixed(2)} s, kube-apiserver ${apiserverCpu.toFixed(2)} CPU s meanwhile`,
    );
    return manager;
  } catch (err) {
    await manager.stop();
    throw err;
  } finally {
    await firstPod.close();
  }
}

/**
 * Figure 1b, live changes first: as soon as the caches have synced, while the start's 1,000
 * ReplicaSets may still wait in the queue, a user scales one of them up by one; timed from that
 * write to its new Pod. The burst later brings it back in line with the others.
 */
async function measureLiveChange(ctx: BenchContext, manager: ManagerProcess): Promise<void> {
  const { namespace, name } = replicaSetAt(ctx.shape, 0);
  const current = await ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).get(name);
  const newPod = await firstPodCreated(ctx.client, namespace, `app=${name}`, syncTimeoutMs);
  try {
    const written = performance.now();
    await ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).patch(name, { spec: { replicas: (current.spec?.replicas ?? 0) + 1 } }, "merge");
    const seconds = ((await manager.unlessExited(newPod.at)) - written) / 1000;
    const afterExec = (written - manager.execAt) / 1000;
    ctx.samples.record("live scale", manager.system, seconds);
    ctx.progress(`${manager.system}: ReplicaSet ${namespace}/${name} scaled ${afterExec.toFixed(2)} s after exec, right after the sync: its new Pod ${seconds.toFixed(2)} s after the write`);
  } finally {
    await newPod.close();
  }
}

/**
 * Figure 5: SIGTERM, then a fresh process, with every Pod creation and deletion and every
 * ReplicaSet update in the seeded namespaces counted from before the stop until the new process
 * has synced and gone quiet. Nothing changed, so each of them would be a mistake.
 */
async function measureRestart(ctx: BenchContext, peer: PeerProcess, previous: ManagerProcess, round: number): Promise<ManagerProcess> {
  const seeded = new Set(namespaceNames(ctx.shape));
  const inSeeded = (object: { metadata?: { namespace?: string } }) => seeded.has(object.metadata?.namespace ?? "");
  const pods = await ChangeCounter.start(ctx.client, resources.pods, inSeeded);
  const replicaSets = await ChangeCounter.start(ctx.client, resources.replicaSets, inSeeded);
  await previous.stop("SIGTERM");
  const manager = await startManager(ctx, peer, `${tagOf(peer.system)}-${round}-restart-${ctx.runId}`);
  try {
    const syncedSeconds = await manager.monitorsSyncedAfter(syncTimeoutMs);
    await manager.settle(settleMinMs, settleMaxMs);
    const podChanges = await pods.close();
    const replicaSetChanges = await replicaSets.close();
    ctx.samples.record("restart synced", peer.system, syncedSeconds);
    ctx.samples.record("restart pods created", peer.system, podChanges.created);
    ctx.samples.record("restart pods deleted", peer.system, podChanges.deleted);
    ctx.samples.record("restart replicaset writes", peer.system, replicaSetChanges.modified);
    ctx.progress(
      `${peer.system}: restart synced in ${syncedSeconds.toFixed(2)} s; across it Pods created ${podChanges.created}, deleted ${podChanges.deleted}, ` +
        `Pod updates ${podChanges.modified}, ReplicaSet updates ${replicaSetChanges.modified}`,
    );
    return manager;
  } catch (err) {
    await manager.stop();
    throw err;
  }
}

/**
 * Figure 2, second half: peak RSS while every informer relists after kube-apiserver restarted with
 * their resourceVersions expired (see forced-relist.ts), until the process is quiet again. This
 * process has been through a restart and both bursts, so its RSS right before the stop is recorded
 * too: the peak over it is what the relist itself added; over the idle RSS (another process, before
 * the bursts) it is not. The peak is the kernel's high-water mark, reset right before the stop.
 */
async function measureForcedRelist(ctx: BenchContext, manager: ManagerProcess): Promise<void> {
  await waitForQuiet([...ctx.controlPlane.pids, manager.pid]);
  const before = residentMiB(manager.pid);
  resetPeakResident(manager.pid);
  // Counted from the stop: clients reconnect (and relist) while kube-apiserver is still starting up.
  const relist = async () => {
    const stoppedAt = performance.now();
    const cpuBefore = cpuSeconds(manager.pid);
    await restartApiserverExpiringWatches(ctx.controlPlane, ctx.client);
    await manager.settle(settleMinMs, settleMaxMs);
    return { cpu: cpuSeconds(manager.pid) - cpuBefore, seconds: (performance.now() - stoppedAt) / 1000 };
  };
  const { peakMiB: sampledMiB, result } = await peakRssWhile(manager.pid, 100, relist());
  const peakMiB = Math.max(sampledMiB, peakResidentMiB(manager.pid));
  ctx.samples.record("relist rss before", manager.system, before);
  ctx.samples.record("relist rss", manager.system, peakMiB);
  ctx.samples.record("relist peak over before", manager.system, peakMiB / before);
  ctx.samples.record("relist cpu", manager.system, result.cpu);
  ctx.progress(
    `${manager.system}: forced relist peak RSS ${peakMiB.toFixed(0)} MiB (sampled every 100 ms: ${sampledMiB.toFixed(0)}) against ${before.toFixed(0)} MiB right before the stop, ` +
      `${result.cpu.toFixed(2)} CPU s from kube-apiserver's stop until quiet again ${result.seconds.toFixed(1)} s later`,
  );
}
