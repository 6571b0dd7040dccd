// kube-controller-manager's garbage collector: monitors every deletable resource through
// metadata informers (or the informer another controller reads that resource's objects from),
// keeps the dependency graph of their ownerReferences, and runs the attemptToDelete and
// attemptToOrphan workers over the nodes the graph builder queues.
//
//   informers ──▶ GraphBuilder ──▶ graph
//                     │ queues nodes
//                     ├──▶ attempt_to_delete ──▶ AttemptToDelete (classify owners, delete / patch)
//                     └──▶ attempt_to_orphan ──▶ AttemptToOrphan (detach dependents, drop finalizer)
//
// The graph follows the informers from start-up, leader or not; the workers and the 30 s
// discovery refresh run only while leading.
import { type Clock, realClock } from "../../pkg/clock/clock.ts";
import { Controller } from "../../pkg/controller/controller.ts";
import type { Reconciler } from "../../pkg/controller/reconciler.ts";
import type { EventType } from "../../pkg/events/event.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { PreferredResources } from "../../pkg/kube/discovery.ts";
import { apiVersionOf } from "../../pkg/kube/gvr.ts";
import type { Logger } from "../../pkg/log/logger.ts";
import type { ControllerContext } from "../../pkg/manager/controller-descriptor.ts";
import type { Runnable } from "../../pkg/manager/runnable.ts";
import type { HealthCheck } from "../../pkg/health/health-check.ts";
import type { DebugRoute } from "../../pkg/debug/debug-route.ts";
import type { ControllerReport } from "../../pkg/status/status-snapshot.ts";
import { AbsentOwnerCache } from "./absent-owner-cache.ts";
import { AttemptToDelete } from "./attempt-to-delete.ts";
import { AttemptToOrphan } from "./attempt-to-orphan.ts";
import { graphDebugRoute } from "./debug-graph.ts";
import { followNamespaceTakeovers } from "./namespace-takeover.ts";
import { GraphBuilder } from "./graph-builder.ts";
import type { GraphNode, ObjectIdentity } from "./graph.ts";
import { type AttemptQueue, type GarbageCollectorMetrics, prometheusGarbageCollectorMetrics } from "./metrics.ts";
import { KubeObjectApi } from "./object-api.ts";
import { deletableResources, ResourceMonitors } from "./resource-monitors.ts";
import { RestMapper } from "./rest-mapper.ts";
import { errorMessage } from "../../pkg/errors/expected-error.ts";

/** kube-controller-manager's discovery period, also the longest wait for monitors before the workers start. */
const resourceRefreshPeriodMs = 30_000;
const monitorSyncPollMs = 100;

export interface GarbageCollectorOptions
  extends Pick<ControllerContext, "informers" | "events" | "logger" | "metrics" | "workqueueMetrics" | "reconcileObserver" | "ownership"> {
  /** The garbage collector's own client (its descriptor asks for twice the QPS, as kube-controller-manager gives it). */
  client: KubeClient;
  /** Workers per queue (--concurrent-gc-syncs). */
  workers: number;
  /** Names the controller in health checks, metrics and debug routes. */
  name: string;
  clock?: Clock;
}

/** Two controller loops over one graph: attemptToDelete and attemptToOrphan, each with its own queue and workers. */
export class GarbageCollector implements Runnable {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly mapper = new RestMapper();
  private readonly monitors: ResourceMonitors;
  private readonly builder: GraphBuilder;
  private readonly metrics: GarbageCollectorMetrics;
  private readonly loops: Controller<GraphNode>[];
  readonly name: string;
  /** One check for both loops, under the controller's name. */
  readonly healthChecks: readonly HealthCheck[];
  readonly debugRoutes: readonly DebugRoute[];

  constructor(private readonly options: GarbageCollectorOptions) {
    this.name = options.name;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger;
    const deleter = this.loop("attempt_to_delete");
    const orphaner = this.loop("attempt_to_orphan");
    const attemptToDelete = deleter.queue;
    const attemptToOrphan = orphaner.queue;
    const absentOwners = new AbsentOwnerCache();
    this.metrics = prometheusGarbageCollectorMetrics(options.metrics, {
      nodeCounts: () => this.nodeCounts(),
      monitoredResources: () => this.monitors.size,
    });
    this.builder = new GraphBuilder({
      attemptToDelete,
      attemptToOrphan,
      absentOwners,
      reportInvalidNamespaceOwnerRef: (dependent, message) => this.report(dependent, "Warning", "OwnerRefInvalidNamespace", message),
      metrics: this.metrics,
      logger: this.logger,
    });
    this.monitors = new ResourceMonitors(
      options.informers,
      (resource) => this.builder.handlerFor(apiVersionOf(resource), resource.kind),
      this.logger,
    );
    const api = new KubeObjectApi(options.client, this.mapper, (resource, key) => this.monitors.lookup(resource, key));
    const deleteWorker = new AttemptToDelete({
      api,
      graph: this.builder.graph,
      absentOwners,
      observeVirtualDeletion: (identity) => this.builder.observeVirtualDeletion(identity),
      enqueue: (node) => attemptToDelete.add(node),
      metrics: this.metrics,
      logger: this.logger,
    });
    deleter.reconcileWith(this.counted("attempt_to_delete", deleteWorker));
    orphaner.reconcileWith(this.counted("attempt_to_orphan", new AttemptToOrphan({ api, metrics: this.metrics })));
    this.loops = [deleter, orphaner];
    const checks = this.loops.map((loop) => loop.healthCheck());
    const check = async () => {
      for (const one of checks) await one.check();
    };
    this.healthChecks = [{ name: options.name, check }];
    this.debugRoutes = [graphDebugRoute(options.name, this.builder.graph)];
  }

  /** Discovers the resources and requests their informers; call before the factory starts. A failed discovery is retried by `start`. */
  async initialize(): Promise<void> {
    await this.refreshResources();
  }

  /** Runs the workers and the discovery refresh until `stop` aborts. */
  async start(stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const refreshing = this.keepResourcesFresh(stop);
    const synced = await this.waitFor(() => this.monitors.isSynced(), resourceRefreshPeriodMs, stop);
    if (stop.aborted) return refreshing;
    if (synced) this.logger.info({ monitored: this.monitors.size }, "all resource monitors have synced; collecting garbage");
    else this.logger.warn({ unsynced: this.monitors.unsynced() }, "not all resource monitors synced in time; collecting garbage anyway");
    const [deleter, orphaner] = this.loops;
    const queues = { attemptToDelete: deleter!.queue, attemptToOrphan: orphaner!.queue };
    const unfollow = this.options.ownership && followNamespaceTakeovers(this.options.ownership, this.builder.graph, queues);
    try {
      await Promise.all([...this.loops.map((loop) => loop.run(stop, abort)), refreshing]);
    } finally {
      unfollow?.();
    }
  }



  /** For the status page: both loops (their rows show queue depth and busy workers) and the graph's size. */
  status(): ControllerReport {
    const { observed, virtual } = this.nodeCounts();
    return {
      loops: this.loops.map((loop) => loop.status()),
      details: [
        { label: "graph nodes", value: observed },
        { label: "virtual graph nodes", value: virtual },
        { label: "monitored resources", value: this.monitors.size },
      ],
    };
  }


  private loop(queue: AttemptQueue): Controller<GraphNode> {
    const { options } = this;
    return new Controller<GraphNode>({
      name: `${options.name}-${queue.replaceAll("_", "-")}`,
      queueName: `garbage_collector_${queue}`,
      informers: options.informers,
      workers: options.workers,
      workqueueMetrics: options.workqueueMetrics,
      reconcileObserver: options.reconcileObserver,
      logger: this.logger,
      clock: this.clock,
      // In a shard ring a node is collected by the member that owns its namespace; cluster-scoped ones by the owner of "".
      ...(options.ownership && { sharding: { ownership: options.ownership, namespaceOf: (node: GraphNode) => node.namespace ?? "" } }),
    });
  }

  private async keepResourcesFresh(stop: AbortSignal): Promise<void> {
    // Without monitors (start-up discovery failed) there is nothing to wait for.
    let now = this.monitors.size === 0;
    while (!stop.aborted) {
      if (!now) await this.clock.sleep(resourceRefreshPeriodMs, stop).catch(() => undefined);
      now = false;
      if (stop.aborted) return;
      await this.refreshResources();
      this.options.informers.start(stop);
    }
  }

  /** One discovery: new resources get monitors, removed ones lose them. Failures keep what there is. */
  private async refreshResources(): Promise<void> {
    const discovered = await this.discover();
    if (!discovered) return;
    if (discovered.failed.size > 0) {
      this.logger.info({ groups: Object.fromEntries([...discovered.failed].map(([gv, err]) => [gv, err.message])) }, "failed to discover some groups");
    }
    this.mapper.update(discovered);
    const resources = deletableResources(discovered, this.monitors);
    if (resources.length === 0) {
      this.metrics.resourcesSyncFailed();
      this.logger.warn("discovery reported no deletable resources; keeping the current monitors");
      return;
    }
    if (!this.monitors.monitorsExactly(resources)) this.monitors.sync(resources);
  }

  private async discover(): Promise<PreferredResources | undefined> {
    try {
      return await this.options.client.discovery.serverPreferredResources();
    } catch (err) {
      this.metrics.resourcesSyncFailed();
      this.logger.warn({ err: errorMessage(err) }, "failed to discover resources; keeping the current monitors");
      return undefined;
    }
  }

  private async waitFor(condition: () => boolean, timeoutMs: number, stop: AbortSignal): Promise<boolean> {
    const deadline = this.clock.monotonic() + timeoutMs;
    while (!condition()) {
      if (stop.aborted || this.clock.monotonic() >= deadline) return false;
      await this.clock.sleep(monitorSyncPollMs, stop).catch(() => undefined);
    }
    return true;
  }

  private report(about: ObjectIdentity, type: EventType, reason: string, message: string): void {
    const regarding = {
      apiVersion: about.apiVersion,
      kind: about.kind,
      metadata: { name: about.name, uid: about.uid, ...(about.namespace ? { namespace: about.namespace } : {}) },
    };
    this.options.events.eventf(regarding, undefined, type, reason, "GarbageCollect", message);
  }

  private counted(queue: AttemptQueue, reconciler: Reconciler<GraphNode>): Reconciler<GraphNode> {
    return {
      reconcile: async (node, signal) => {
        try {
          const result = await reconciler.reconcile(node, signal);
          this.metrics.attempted(queue, "success");
          return result;
        } catch (err) {
          this.metrics.attempted(queue, "error");
          throw err;
        }
      },
    };
  }

  private nodeCounts(): { observed: number; virtual: number } {
    let virtual = 0;
    for (const node of this.builder.graph.values()) if (node.virtual) virtual++;
    return { observed: this.builder.graph.size - virtual, virtual };
  }
}

