// A controller: one workqueue of keys, the workers that reconcile them, and the caches those
// reconciles read. `watch` turns a resource's events into keys; `informer` names a cache the
// reconciler reads; `run` starts the workers once every one of those caches has synced, never
// earlier. The builder (pkg/builder) is a shorthand over this; a controller the builder cannot
// express (several queues over one state, handlers that track expectations) uses it directly.
import { type Clock, realClock } from "../clock/clock.ts";
import type { HealthCheck } from "../health/health-check.ts";
import type { ResourceEventHandler } from "../informer/event-handler.ts";
import type { InformerScope, ReadOptions, ResourceInformer, SharedInformerFactory } from "../informer/factory.ts";
import type { Indexers } from "../informer/store.ts";
import { splitMetaNamespaceKey } from "../informer/keys.ts";
import { type CacheSyncSource, waitForNamedCacheSync } from "../informer/wait-for-cache-sync.ts";
import type { GroupVersionResource } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import type { WorkqueueMetricsProvider } from "../workqueue/metrics.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "../workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../workqueue/rate-limiting-queue.ts";
import { filtered } from "./handlers.ts";
import type { Predicate } from "./predicates.ts";
import type { ReconcileObserver } from "./reconcile-observer.ts";
import { ReconcileRunner } from "./internal/reconcile-runner.ts";
import { NamespaceReplay } from "./namespace-replay.ts";
import type { NamespaceOwnership } from "../shardelection/namespace-ownership.ts";
import type { Reconciler } from "./reconciler.ts";

/**
 * The most workers a controller may have: each is a coroutine made when the controller starts, and
 * millions of them would hang the start (kube-controller-manager's only limit is int32's).
 */
export const maxWorkers = 10_000;

/** A whole number of workers from 1 to maxWorkers. */
export function isWorkerCount(count: number): boolean {
  return Number.isInteger(count) && count >= 1 && count <= maxWorkers;
}

/** `count` when it is a worker count (isWorkerCount); else throws Error naming controller `name`. */
export function checkedWorkers(name: string, count: number): number {
  if (isWorkerCount(count)) return count;
  throw new Error(`controller ${name}: invalid number of workers ${count}: expected a whole number from 1 to ${maxWorkers}`);
}

/** What a Controller is made with; `ControllerContext` has most of it. */
export interface ControllerOptions<K> {
  /** Names the controller in logs, health checks, metrics and the status page. */
  name: string;
  /** The process's shared informers: `watch` and `informer` take theirs from it. */
  informers: SharedInformerFactory;
  /** Workers reconciling different keys at once, from 1 to maxWorkers. Default: 1. */
  workers?: number | undefined;
  /** Retry delays for failed reconciles. Default: client-go's controller rate limiter. */
  rateLimiter?: RateLimiter<K> | undefined;
  /** The workqueue's name in workqueue_* metrics. Default: the controller's name. */
  queueName?: string | undefined;
  /** Where the queue's workqueue_* metrics go (`ControllerContext.workqueueMetrics`); default none. */
  workqueueMetrics?: WorkqueueMetricsProvider | undefined;
  /** Told of every reconcile (`ControllerContext.reconcileObserver`): metrics and the status page. */
  reconcileObserver?: ReconcileObserver | undefined;
  /** Default: silent. */
  logger?: Logger | undefined;
  /** Default: the real clock; tests pass a fake. */
  clock?: Clock | undefined;
  /**
   * As one member of a shard ring: reconcile only the keys of the namespaces this process owns now.
   */
  sharding?: ControllerSharding<K> | undefined;
}

/** A controller in a shard ring (`ControllerOptions.sharding`). */
export interface ControllerSharding<K> {
  /** Which namespaces the process acts on now: `ControllerContext.ownership`. */
  ownership: NamespaceOwnership;
  /** The namespace of a key ("" for a cluster-scoped object). Default: the namespace of a "namespace/name" string key. */
  namespaceOf?: ((key: K) => string) | undefined;
}

/** Options of `Controller.informer`: which part of the collection, and the indexes the reconciler reads by. */
export interface CacheOptions<T extends KubeObject> extends ReadOptions {
  /** Which part of the collection; default: everything. */
  scope?: InformerScope | undefined;
  /** Indexes the reconciler looks objects up by; one another controller already added is kept. */
  indexers?: Indexers<T> | undefined;
}

/** Options of a resource whose events queue keys (`Controller.watch`, the builder's `owns` and `watches`): its cache, which events count, and their replay. */
export interface EventSourceOptions<T extends KubeObject> extends CacheOptions<T> {
  /** Events some predicate rejects reach no handler. */
  predicates?: readonly Predicate<T>[] | undefined;
  /** Replay every cached object to the handler this often (ms); 0: never. Default: the factory's resync. */
  resyncPeriodMs?: number | undefined;
}

/**
 * The controller core under the builder, for a controller the builder cannot express (several queues over one
 * state, handlers that track expectations): one workqueue of keys `K`, the workers that reconcile them, and the
 * caches those reconciles read. Call `informer`, `watch` and `waitFor` while setting up, before the informers
 * start (an informer asked for later is not started); then `reconcileWith`, then `run` (a Runnable's `start`).
 */
export class Controller<K = string> {
  /** Names it in logs, metrics, health checks and the status page. */
  readonly name: string;
  /** Its workqueue: handlers add keys with `add` or `addAfter`; the workers take them. */
  readonly queue: RateLimitingQueue<K>;
  private readonly informers: SharedInformerFactory;
  private readonly logger: Logger;
  private readonly runner: ReconcileRunner<K>;
  private readonly sources: CacheSyncSource[] = [];
  private reconciler: Reconciler<K> | undefined;
  /** In a shard ring: replays the watched caches' objects of namespaces this process starts acting on. */
  private readonly replay: NamespaceReplay | undefined;

  /** Makes the queue and the workers; starts nothing. Throws Error for a number of workers out of range. */
  constructor(options: ControllerOptions<K>) {
    const clock = options.clock ?? realClock;
    this.name = options.name;
    this.informers = options.informers;
    this.logger = options.logger ?? silentLogger;
    this.queue = new RateLimitingQueue<K>(options.rateLimiter ?? defaultControllerRateLimiter<K>(clock), {
      name: options.queueName ?? options.name,
      clock,
      metricsProvider: options.workqueueMetrics,
    });
    this.runner = new ReconcileRunner<K>({
      name: options.name,
      queue: this.queue,
      workers: checkedWorkers(options.name, options.workers ?? 1),
      logger: this.logger,
      observer: options.reconcileObserver,
      clock,
      reconciler: { reconcile: (key, signal) => this.reconcilerOrThrow().reconcile(key, signal) },
      sharding: options.sharding && { ownership: options.sharding.ownership, namespaceOf: options.sharding.namespaceOf ?? namespaceOfKey },
    });
    this.replay = options.sharding && new NamespaceReplay(options.sharding.ownership);
  }

  /**
   * The shared informer of `resource`, for the reconciler to read; the workers wait for its cache.
   * Call it while setting up, not from a reconcile: an informer asked for after the informers started stays empty.
   */
  informer<T extends KubeObject>(resource: GroupVersionResource<T>, options: CacheOptions<NoInfer<T>> = {}): ResourceInformer<T> {
    const shared = this.informers.forResource(resource, options.scope, { ...(options.fields && { fields: options.fields }) });
    this.addIndexers(shared, options.indexers);
    this.waitFor(shared.informer);
    return shared;
  }

  /** Feeds `handler` the events of `resource` that pass the predicates; the workers wait for that cache too. */
  watch<T extends KubeObject>(resource: GroupVersionResource<T>, handler: ResourceEventHandler<NoInfer<T>>, options: EventSourceOptions<NoInfer<T>> = {}): ResourceInformer<T> {
    const shared = this.informer(resource, options);
    const { resyncPeriodMs } = options;
    const events = filtered(handler, options.predicates ?? []);
    shared.informer.addEventHandler(events, resyncPeriodMs === undefined ? {} : { resyncPeriodMs });
    this.replay?.add(shared.informer.getIndexer(), events);
    return shared;
  }

  /** One more cache to wait for before the workers start (a CRD's informer, say). */
  waitFor(source: CacheSyncSource): void {
    if (!this.sources.includes(source)) this.sources.push(source);
  }

  /** What reconciles this controller's keys; set it before `run`. */
  reconcileWith(reconciler: Reconciler<K>): this {
    this.reconciler = reconciler;
    return this;
  }

  /** Every cache the controller reads. */
  get caches(): readonly CacheSyncSource[] {
    return this.sources;
  }

  /**
   * Waits for every cache, then runs the workers until `stop` aborts, and resolves once the
   * reconciles in flight have finished; `abort` is handed to reconciles for an immediate stop.
   */
  async run(stop: AbortSignal, abort: AbortSignal = stop): Promise<void> {
    this.reconcilerOrThrow();
    if (!(await waitForNamedCacheSync(this.name, this.sources, stop, { logger: this.logger }))) return;
    if (this.sources.length > 0) this.logger.info("caches synced; reconciling");
    const unfollow = this.replay?.follow();
    try {
      await this.runner.run(stop, abort);
    } finally {
      unfollow?.();
    }
  }

  /** Fails while a reconcile is wedged or after the workers crashed. */
  healthCheck(): HealthCheck {
    return this.runner.healthCheck();
  }

  /** The workers' state for the status page. */
  status(): ReturnType<ReconcileRunner<K>["status"]> {
    return this.runner.status();
  }

  private reconcilerOrThrow(): Reconciler<K> {
    if (!this.reconciler) throw new Error(`controller ${this.name} has no reconciler: call reconcileWith before run`);
    return this.reconciler;
  }

  private addIndexers<T extends KubeObject>(shared: ResourceInformer<T>, indexers: Indexers<T> | undefined): void {
    const present = shared.informer.getIndexer().getIndexers();
    const missing = Object.entries(indexers ?? {}).filter(([name]) => !(name in present));
    if (missing.length > 0) shared.informer.addIndexers(Object.fromEntries(missing));
  }
}

/** The namespace of a "namespace/name" key ("" for a cluster-scoped "name"); other keys need their own `namespaceOf`. */
function namespaceOfKey(key: unknown): string {
  if (typeof key !== "string") throw new Error("a sharded controller whose keys are not \"namespace/name\" strings needs sharding.namespaceOf");
  return splitMetaNamespaceKey(key).namespace;
}
