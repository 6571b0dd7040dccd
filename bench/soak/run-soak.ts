// The soak from start to end: control plane, the kube-loom replicas (a leader-elected pair or a
// shard ring), the independent watch and the audit log follower; then the workload and the
// faults side by side for the set time; then the wait for everything to converge and the final
// checks. Everything it started is stopped again, whatever happens.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AuditEvent, AuditLogReader } from "../../test/support/audit-log.ts";
import { waitUntil } from "../../test/support/eventually.ts";
import { ShardWriteCheck } from "../../test/support/shard-audit.ts";
import { ChaosMonkey } from "./chaos-monkey.ts";
import { ClusterObserver } from "./cluster-observer.ts";
import { awaitConvergence, type ConvergenceResult } from "./final-convergence.ts";
import { LeadershipOverlapCheck } from "./leadership-overlap-check.ts";
import { OwnerDeletionMonitor } from "./owner-deletion-monitor.ts";
import { judgeOrphans } from "./orphan-outcome.ts";
import { PodExcessMonitor, type PodExcessSummary } from "./pod-excess-monitor.ts";
import { ProxyChaos } from "./proxy-chaos.ts";
import { ReplicaUsageSampler, type UsageSample, usageGrowth } from "./replica-usage.ts";
import { soakNamespaces, startSoakCluster } from "./soak-cluster.ts";
import { fleetUsers, SoakFleet } from "./soak-fleet.ts";
import type { SoakOptions } from "./soak-options.ts";
import { soakRing } from "./soak-replica.ts";
import { SeededRandom } from "./seeded-random.ts";
import { SoakTally } from "./soak-tally.ts";
import { countLoggedErrors, findStackTraces, type StackTraceFound } from "./replica-logs.ts";
import { WorkloadDriver } from "./workload-driver.ts";

export interface SoakResult {
  options: SoakOptions;
  tally: SoakTally;
  podExcess: PodExcessSummary;
  convergence: ConvergenceResult;
  /** From the end of the last fault until the workload stopped (the convergence wait starts then). */
  lastFaultToWorkloadEndMs: number;
  /** The replicas' writes judged against who acted at the time (the Lease's holder, or the slot table), and how often that changed. */
  ownership: OwnershipFigures;
  ownerDeletions: { checked: number; unverifiable: number };
  relists: { observer: number; replicas: number };
  /** Changes the observer delivered out of revision order (0 expected). */
  lateChanges: number;
  replicaExits: Map<string, number>;
  /** Leader election: processes started with --leader-elect-warm-standby on and off. */
  warmStandbyStarts: { on: number; off: number };
  /** RSS and open sockets of every replica over the run. */
  usage: UsageSample[];
  /** Stack traces in the replicas' logs: each one is a bug. */
  stackTraces: StackTraceFound[];
  /** Lines of the replicas' logs carrying an error, by its type. */
  loggedErrors: Map<string, number>;
}

export interface OwnershipFigures {
  checkedAgainst: string;
  writesChecked: number;
  changesLabel: string;
  changes: number;
}

/** "No two replicas acting on one thing at once", checked as each mode defines who acts. */
interface OwnershipCheck {
  consume(events: readonly AuditEvent[], final?: boolean): void;
  figures(): OwnershipFigures;
}

const lease = { namespace: "kube-system", name: "kube-loom" };
const auditIntervalMs = 2_000;
const startUpTimeoutMs = 120_000;

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  mkdirSync(options.logDir, { recursive: true });
  console.error(`[soak] seed ${options.seed}, ${Number((options.durationMs / 60_000).toFixed(2))} min, logs in ${options.logDir}`);
  const tally = new SoakTally();
  const random = new SeededRandom(options.seed);
  const replicaUsers = fleetUsers(options.mode);
  const cluster = await startSoakCluster({ logDir: options.logDir, watchCache: options.watchCache, auditedUsers: [...replicaUsers, "admin"] });
  const cleanup: (() => Promise<void>)[] = [
    async () => {
      copyFileSync(cluster.controlPlane.apiserverLogPath, join(options.logDir, "apiserver.log"));
      await cluster.controlPlane.stop();
    },
  ];
  try {
    const podExcess = new PodExcessMonitor(options.excessWindowMs, tally);
    const ownerDeletions = new OwnerDeletionMonitor(cluster.admin, tally);
    const observer = await ClusterObserver.start(cluster.admin, soakNamespaces, (change) => {
      podExcess.observe(change);
      ownerDeletions.observe(change);
    });
    cleanup.push(() => observer.stop());

    const overlap = ownershipCheck(options, replicaUsers, tally);
    const audit = new AuditLogReader(cluster.auditLogPath);
    /** The trees' audit events: evidence for judging lost orphans. */
    const treeAudit: AuditEvent[] = [];
    const readAudit = (final = false) => {
      const events = audit.readNew();
      overlap.consume(events, final);
      treeAudit.push(...events.filter((event) => event.namespace === soakNamespaces.trees));
    };
    const ticker = setInterval(() => {
      readAudit();
      podExcess.tick(performance.now());
    }, auditIntervalMs);
    cleanup.push(async () => clearInterval(ticker));

    const fleet = new SoakFleet(cluster.controlPlane, options.mode, cluster.binary, options.logDir, tally);
    cleanup.push(() => fleet.shutdown());
    await fleet.startInitial();
    const usage = new ReplicaUsageSampler(fleet, () => observer.cachedObjects(), options.usageSampleMs);
    usage.start();
    cleanup.push(async () => usage.stop());
    await waitUntilActing(fleet, options);

    const driver = new WorkloadDriver(cluster.admin, soakNamespaces, options, random.fork(1), tally, () => observer.livePods());
    await driver.setUp();
    const baseline = await awaitConvergence(cluster.admin, soakNamespaces, startUpTimeoutMs);
    if (baseline.convergedAfterMs === undefined) {
      throw new Error(`the ReplicaSets did not converge before any fault: ${baseline.problems.map((p) => p.detail).join("; ")}`);
    }

    const chaos = new ChaosMonkey(cluster.controlPlane, fleet, random.fork(2), tally, options);
    const proxyChaos = new ProxyChaos(fleet, random.fork(3), tally, options.proxyFaults);
    const workload = new AbortController();
    cleanup.push(async () => workload.abort());
    const stop = AbortSignal.any([AbortSignal.timeout(options.durationMs), workload.signal]);
    await Promise.all([driver.run(stop), chaos.run(stop), proxyChaos.run(stop)]);
    const lastFaultToWorkloadEndMs = performance.now() - Math.max(chaos.lastFaultEndedAt, proxyChaos.lastFaultEndedAt);
    console.error(`[soak ${tally.elapsedSeconds().toFixed(1)}s] workload and faults stopped; waiting for convergence`);

    const convergence = await awaitConvergence(cluster.admin, soakNamespaces, options.convergenceTimeoutMs);
    for (const problem of convergence.problems) tally.violation(problem.type, problem.detail);

    observer.flushAll();
    await ownerDeletions.settle();
    podExcess.tick(performance.now());
    readAudit(true);
    await judgeOrphans(cluster.admin, soakNamespaces.trees, driver.trees, treeAudit, replicaUsers, tally);
    usage.stop();
    for (const finding of usageGrowth(usage.samples)) tally.violation("replica-growth", finding);
    // Stopped before their logs are read: what a replica logs as it shuts down counts too.
    await fleet.shutdown();

    return {
      options,
      tally,
      podExcess: podExcess.summary,
      convergence,
      lastFaultToWorkloadEndMs,
      ownership: overlap.figures(),
      ownerDeletions: { checked: ownerDeletions.checked, unverifiable: ownerDeletions.unverifiable },
      relists: { observer: observer.relists, replicas: countLines(fleet.everyReplica.flatMap((r) => r.logPaths), "resourceVersion expired; relisting") },
      lateChanges: observer.lateChanges,
      replicaExits: mergeCounts(fleet.everyReplica.map((r) => r.exits)),
      warmStandbyStarts: {
        on: fleet.everyReplica.reduce((sum, r) => sum + r.warmStandbyStarts.on, 0),
        off: fleet.everyReplica.reduce((sum, r) => sum + r.warmStandbyStarts.off, 0),
      },
      usage: usage.samples,
      stackTraces: findStackTraces(fleet.everyReplica.flatMap((r) => r.logPaths)),
      loggedErrors: countLoggedErrors(fleet.everyReplica.flatMap((r) => r.logPaths)),
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => console.error(`[soak] clean-up: ${err instanceof Error ? err.message : String(err)}`));
  }
}

function ownershipCheck(options: SoakOptions, replicaUsers: readonly string[], tally: SoakTally): OwnershipCheck {
  if (options.mode === "sharded") {
    const check = new ShardWriteCheck({ namespace: "kube-system", name: soakRing }, replicaUsers, (evidence) => tally.violation("double-act", evidence));
    return {
      consume: (events, final) => check.consume(events, final),
      figures: () => ({ checkedAgainst: "the slot table", writesChecked: check.writesChecked, changesLabel: "slot table versions", changes: check.tableVersions }),
    };
  }
  const check = new LeadershipOverlapCheck(lease, replicaUsers, tally);
  return {
    consume: (events, final) => check.consume(events, final),
    figures: () => ({ checkedAgainst: "the Lease holder", writesChecked: check.writesChecked, changesLabel: "Lease acquisitions", changes: check.acquisitions }),
  };
}

/** Until some replica leads, or every slot of the ring is held. */
async function waitUntilActing(fleet: SoakFleet, options: SoakOptions): Promise<void> {
  if (options.mode === "sharded") {
    const everySlotHeld = async () => {
      const [held, inTable] = await Promise.all([Promise.all(fleet.running.map((r) => r.slotsHeld())), Promise.all(fleet.running.map((r) => r.slotsInTable()))]);
      const slots = Math.max(0, ...inTable);
      return slots > 0 && held.reduce((sum, n) => sum + n, 0) === slots;
    };
    await waitUntil(everySlotHeld, "every slot of the ring held", startUpTimeoutMs, 500);
    return;
  }
  await waitUntil(async () => (await Promise.all(fleet.running.map((r) => r.isActing()))).some(Boolean), "a kube-loom replica leading", startUpTimeoutMs, 500);
}

function countLines(paths: readonly string[], text: string): number {
  return paths.reduce((sum, path) => sum + readFileSync(path, "utf8").split("\n").filter((line) => line.includes(text)).length, 0);
}

function mergeCounts(maps: readonly Map<string, number>[]): Map<string, number> {
  const merged = new Map<string, number>();
  for (const map of maps) for (const [key, count] of map) merged.set(key, (merged.get(key) ?? 0) + count);
  return merged;
}
