// Runs controllers in the test's own process against a real API server, with the machinery the
// manager gives them: one informer factory, an Event broadcaster writing to the API server, each
// controller's client by its descriptor's policy, Prometheus metrics and the controllers' flags.
// No leader election: every controller runs at once, as with --leader-elect=false.
import { Registry } from "prom-client";
import { EventBroadcaster } from "../events/broadcaster.ts";
import { KubeEventSink } from "../events/kube-event-sink.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { describeUnsynced, unsyncedSources, waitForNamedCacheSync } from "../informer/wait-for-cache-sync.ts";
import type { KubeClient } from "../kube/client.ts";
import { leaderElectionIdentity } from "../leaderelection/identity.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import type { ControllerDescriptor } from "../manager/controller-descriptor.ts";
import { createControllers, type SharedControllerContext } from "../manager/create-controllers.ts";
import { drain } from "../manager/shutdown.ts";
import type { Runnable } from "../manager/runnable.ts";
import { ShardMembership } from "../manager/shard-membership.ts";
import type { HashRange } from "../sharding/hash-range.ts";
import { PrometheusInformerMetricsProvider } from "../metrics/informer-metrics.ts";
import { prometheusReconcileMetrics } from "../metrics/reconcile-metrics.ts";
import { PrometheusWorkqueueMetricsProvider } from "../metrics/workqueue-metrics.ts";
import { checkControllerNames } from "../options/controller-selection.ts";
import { controllerFlagValues } from "./controller-flags.ts";

/** Options of `TestEnvironment.run`. */
export interface RunOptions {
  /** The controllers' own flags as on the command line, e.g. `["--mirror-source=team-a/settings"]`. */
  flags?: readonly string[] | undefined;
  /** Where the controllers log. Default: nowhere. */
  logger?: Logger | undefined;
  /** How long `run` waits for the controllers' caches to sync. Default 60 s. */
  syncTimeoutMs?: number | undefined;
  /** How long `stop` lets in-flight reconciles finish before abandoning them (--controller-shutdown-timeout). Default 30 s. */
  shutdownTimeoutMs?: number | undefined;
  /**
   * Run as one member of this shard ring (--shard-ring): start several runs with the same ring to have each act on its
   * own share of the namespaces. `run` resolves before the member holds anything; see `RunningControllers.shard`.
   */
  shardRing?: ShardRingOptions | undefined;
}

/** A test's shard ring: its name, where its Leases live, and its timings (short by default, for tests). */
export interface ShardRingOptions {
  /** The ring's name: runs with the same name share the namespaces. */
  ring: string;
  /** Where the ring's Leases live. Default "kube-system". */
  namespace?: string | undefined;
  /** How long a silent member keeps its slots (--leader-elect-lease-duration). Default 6 s, so a takeover takes seconds. */
  leaseDurationMs?: number | undefined;
  /** How long a member goes on acting without renewing its Lease (--leader-elect-renew-deadline). Default 4 s. */
  renewDeadlineMs?: number | undefined;
  /** How often a member renews its Lease and looks at the table (--leader-elect-retry-period). Default 1 s. */
  retryPeriodMs?: number | undefined;
}

/** One member of a shard ring, as a test sees it. */
export interface ShardRingMember {
  /** This member acts on `namespace` now. */
  holds(namespace: string): boolean;
  /** Slots held, of slotsInTable(). */
  slotsHeld(): number;
  /** Slots in the ring's table: 256, more once slots crowded with namespaces were split. */
  slotsInTable(): number;
}

/** Controllers a test runs; `stop()` them when done (the environment's `stop()` does too). */
export interface RunningControllers {
  /** The registry the controllers report to: workqueue_*, controller_runtime_reconcile_*, informer_* and their own. */
  readonly metrics: Registry;
  /** With `RunOptions.shardRing`: this run's membership. */
  readonly shard?: ShardRingMember | undefined;
  /** Stops the controllers (in-flight reconciles finish first), their informers and the Event writer; rethrows a controller's failure. */
  stop(): Promise<void>;
}

/** kube-loom's client rate limit in tests: as envtest's, high enough never to be what a test waits for. */
export const TEST_CLIENT_RATE = { qps: 1000, burst: 2000 } as const;

const DEFAULT_SYNC_TIMEOUT_MS = 60_000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/** Builds and starts `descriptors`; resolves once every controller's caches have synced and its workers run. */
export async function runControllers(client: KubeClient, descriptors: readonly ControllerDescriptor[], options: RunOptions = {}): Promise<RunningControllers> {
  // What the command would refuse, a test run refuses too.
  checkControllerNames(descriptors);
  const logger = options.logger ?? silentLogger;
  const values = controllerFlagValues(descriptors, options.flags ?? []);
  const metrics = new Registry();
  const identity = leaderElectionIdentity();
  const membership: ShardMembership | undefined = options.shardRing && shardMembership(client, identity, options.shardRing, logger, (ranges) => informers.hasSyncedRanges(ranges));
  const informers: SharedInformerFactory = new SharedInformerFactory({
    listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope),
    // No periodic resync: the manager's comes after 12 h at the earliest (--min-resync-period), past any test.
    defaultResyncMs: 0,
    logger,
    metrics: { provider: new PrometheusInformerMetricsProvider(metrics), name: "kube-loom" },
    ...(membership && { sharding: { share: membership.member.cacheShare, isNamespaced: (gvr) => client.discovery.isNamespaced(gvr) } }),
  });
  const broadcaster = new EventBroadcaster({ sink: new KubeEventSink(client), reportingInstance: identity, logger });
  broadcaster.start();
  const context: SharedControllerContext = {
    informers,
    recorderFor: (reportingController) => {
      const recorder = broadcaster.newRecorder(reportingController);
      return membership ? membership.ownedEvents(recorder) : recorder;
    },
    logger,
    metrics,
    workqueueMetrics: new PrometheusWorkqueueMetricsProvider(metrics),
    reconcileObserver: prometheusReconcileMetrics(metrics),
    values,
    identity,
    ownership: membership?.member,
  };
  const stop = new AbortController();
  const caches = new AbortController();
  const leave = new AbortController();
  const ring = membership && followRing(client, membership, logger, leave.signal);
  const shutDown = async () => {
    stop.abort();
    // The member hands its slots over once the controllers have stopped.
    leave.abort();
    await ring;
    caches.abort();
    await informers.shutdown();
    await broadcaster.shutdown();
  };
  try {
    const names = descriptors.map((descriptor) => descriptor.name);
    const runnables = await createControllers(names, descriptors, context, { client, connection: TEST_CLIENT_RATE, writeGuard: membership?.writeGuard });
    // Not on `stop`: reconciles still running in the grace period read caches kept up to date, as in the manager;
    // shutDown ends the informers once the controllers are done.
    informers.start(caches.signal);
    await waitForCaches(runnables, options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS);
    const settings = { metrics, logger, shutdownTimeoutMs: options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS };
    return started(runnables, stop, shutDown, settings, membership && { holds: (ns) => membership.member.holds(ns), slotsHeld: () => membership.member.status().held, slotsInTable: () => membership.member.status().slots });
  } catch (error) {
    await shutDown();
    throw error;
  }
}

function shardMembership(client: KubeClient, identity: string, ring: ShardRingOptions, logger: Logger, cached: (ranges: readonly HashRange[]) => boolean): ShardMembership {
  const leaseDurationMs = ring.leaseDurationMs ?? 6000;
  const renewDeadlineMs = ring.renewDeadlineMs ?? 4000;
  const leaderElection = { leaseDurationMs, renewDeadlineMs, retryPeriodMs: ring.retryPeriodMs ?? 1000, resourceNamespace: ring.namespace ?? "kube-system" };
  const options = { leaderElection, connection: TEST_CLIENT_RATE, controllerShutdownTimeoutMs: renewDeadlineMs, sharding: { ring: ring.ring } };
  return new ShardMembership({ options, client, identity, logger, cached });
}

/** Follows the ring's Leases and runs the member until `leave` aborts; then it hands its slots over and leaves. */
async function followRing(client: KubeClient, membership: ShardMembership, logger: Logger, leave: AbortSignal): Promise<void> {
  const ring = new SharedInformerFactory({ listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope), defaultResyncMs: 0, logger });
  membership.followRing(ring);
  const watching = new AbortController();
  ring.start(watching.signal);
  await membership.member.run(leave);
  watching.abort();
  await ring.shutdown();
}

function started(
  runnables: readonly Runnable[],
  stop: AbortController,
  shutDown: () => Promise<void>,
  settings: { metrics: Registry; logger: Logger; shutdownTimeoutMs: number },
  shard: ShardRingMember | undefined,
): RunningControllers {
  const abort = new AbortController();
  const failures: unknown[] = [];
  const finished = Promise.all(
    runnables.map((runnable) =>
      runnable.start(stop.signal, abort.signal).catch((error: unknown) => {
        failures.push(new Error(`controller ${runnable.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      }),
    ),
  ).then(() => undefined);
  let stopped: Promise<void> | undefined;
  return {
    metrics: settings.metrics,
    shard,
    stop() {
      stopped ??= (async () => {
        stop.abort();
        await drain(finished, abort, settings.shutdownTimeoutMs, settings.logger);
        await shutDown();
        if (failures.length > 0) throw failures[0];
      })();
      return stopped;
    },
  };
}

/** Waits for every controller's caches, or fails naming those that have not synced and why. */
async function waitForCaches(runnables: readonly Runnable[], timeoutMs: number): Promise<void> {
  const timeout = AbortSignal.timeout(timeoutMs);
  for (const runnable of runnables) {
    const caches = runnable.caches ?? [];
    if (await waitForNamedCacheSync(runnable.name, caches, timeout)) continue;
    const waiting = describeUnsynced(unsyncedSources(caches)).join("; ");
    throw new Error(`controller ${runnable.name}: caches not synced after ${timeoutMs} ms: ${waiting}`);
  }
}
