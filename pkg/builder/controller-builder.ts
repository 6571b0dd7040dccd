// A controller in a few lines (controller-runtime's builder, kube-rs's Controller): name the
// resource it reconciles, what else it follows, how many workers, and the reconcile function;
// the builder asks the shared factory for exactly those informers, waits for exactly those
// caches before the first reconcile, and wires the workqueue, the workers, their metrics and
// the health check.
//
//   export const mirror = controller("configmap-mirror")
//     .for(resources.namespaces)
//     .owns(resources.configMaps)
//     .complete((ctx) => async ({ name, object }) => { … });
import type { ReconcileResult } from "../controller/reconciler.ts";
import { ReconcileRunner } from "../controller/reconcile-runner.ts";
import type { ResourceEventHandler } from "../informer/event-handler.ts";
import type { InformerScope, ResourceInformer } from "../informer/factory.ts";
import { splitMetaNamespaceKey } from "../informer/keys.ts";
import { type CacheSyncSource, waitForNamedCacheSync } from "../informer/wait-for-cache-sync.ts";
import type { GroupVersionResource, ResourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ControllerContext, ControllerDescriptor, RunningController } from "../manager/controller-descriptor.ts";
import type { FlagDefinition } from "../options/flag-definition.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "../workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../workqueue/rate-limiting-queue.ts";
import { CrdGate } from "./crd-gate.ts";
import { controllerOwnerKey, type KeyQueue, type MapFunc, mappingHandler, ownKey } from "./event-mappers.ts";
import type { Predicate } from "./predicates.ts";

/** What one reconcile is about. */
export interface ReconcileRequest<T extends KubeObject> {
  /** "namespace/name", or "name" for a cluster-scoped object. */
  key: string;
  namespace: string;
  name: string;
  /** The primary object as the cache has it now; undefined once it is gone (or when there is no primary). */
  object: T | undefined;
}

/**
 * Resolve to finish, return `{ requeueAfterMs }` to look again later, throw to be retried with
 * backoff (TerminalError: not retried). `signal` aborts when the process must stop at once.
 */
export type ReconcileFunc<T extends KubeObject> = (request: ReconcileRequest<T>, signal: AbortSignal) => Promise<ReconcileResult>;

export type ReconcilerLike<T extends KubeObject> = ReconcileFunc<T> | { reconcile: ReconcileFunc<T> };

/** What `complete`'s setup function gets: the process's shared machinery and this controller's queue. */
export interface SetupContext<T extends KubeObject> extends ControllerContext {
  /** This controller's workqueue. */
  queue: KeyQueue;
  /** The cached primary object with this key, if any. */
  cached(key: string): T | undefined;
  /** Adds `handler` to the shared informer of `resource`; the controller waits for that cache before reconciling. */
  watch<U extends KubeObject>(resource: GroupVersionResource, handler: ResourceEventHandler<U>, scope?: InformerScope): ResourceInformer<U>;
  /** The shared informer of `resource`, for reading its cache; the controller waits for that cache too. */
  informer<U extends KubeObject>(resource: GroupVersionResource, scope?: InformerScope): ResourceInformer<U>;
}

export type Setup<T extends KubeObject> = (context: SetupContext<T>) => ReconcilerLike<T> | Promise<ReconcilerLike<T>>;

export interface ForOptions<T extends KubeObject> {
  /** Which part of the collection (namespace, selectors); default: everything. */
  scope?: InformerScope;
  /** Cache only the objects' metadata. */
  metadataOnly?: boolean;
  predicates?: readonly Predicate<T>[];
  /** "manual": the setup adds the primary's event handler itself, with `watch`. Default: every event queues the object's key. */
  events?: "enqueue" | "manual";
  /** A custom resource: stay idle until its CustomResourceDefinition is established, then start without a restart. */
  waitForCrd?: boolean;
  /** Replay every cached object this often (ms), or as often as an int/duration flag says; 0: never. Default: the factory's resync. */
  resyncPeriod?: number | FlagDefinition<number>;
}

export interface WatchOptions<U extends KubeObject> {
  scope?: InformerScope;
  predicates?: readonly Predicate<U>[];
}

interface Watched {
  resource: GroupVersionResource;
  scope: InformerScope | undefined;
  map: MapFunc<KubeObject>;
  predicates: readonly Predicate<KubeObject>[];
}

interface Primary {
  resource: ResourceType;
  options: ForOptions<KubeObject>;
}

/** Starts a builder for the controller enabled by `--controllers=<name>`. */
export function controller(name: string): ControllerBuilder<KubeObject> {
  return new ControllerBuilder<KubeObject>(name);
}

export class ControllerBuilder<T extends KubeObject> {
  private aliasNames: string[] = [];
  private account: string | undefined;
  private onByDefault = true;
  private readonly extraFlags: FlagDefinition[] = [];
  private primary: Primary | undefined;
  private readonly watched: Watched[] = [];
  private workerCount: number | FlagDefinition<number> = 1;
  private limiter: () => RateLimiter<string> = () => defaultControllerRateLimiter<string>();
  private readonly startKeys: string[] = [];

  constructor(private readonly name: string) {}

  /** Other names `--controllers` accepts for it. */
  aliases(...names: string[]): this {
    this.aliasNames = names;
    return this;
  }

  /** The ServiceAccount it acts as under --use-service-account-credentials. Default: "<name>-controller". */
  serviceAccount(name: string): this {
    this.account = name;
    return this;
  }

  /** Off unless `--controllers` names it. */
  disabledByDefault(): this {
    this.onByDefault = false;
    return this;
  }

  /** The controller's own flags, shown in --help and read with `context.values.get(flag)`. */
  flags(...flags: FlagDefinition[]): this {
    this.extraFlags.push(...flags);
    return this;
  }

  /** The resource the controller reconciles: each of its events queues the object's key. */
  for<U extends KubeObject>(resource: ResourceType, options: ForOptions<U> = {}): ControllerBuilder<U> {
    if (this.primary) throw new Error(`controller ${this.name}: for() given twice`);
    this.primary = { resource, options: options as ForOptions<KubeObject> };
    return this as unknown as ControllerBuilder<U>;
  }

  /** Objects the primary ones control (controller ownerReference): their events queue their owner's key. */
  owns<U extends KubeObject>(resource: GroupVersionResource, options: WatchOptions<U> = {}): this {
    const primary = this.primary?.resource;
    if (!primary) throw new Error(`controller ${this.name}: owns() needs for() first, to know the owner's kind`);
    return this.addWatch(resource, controllerOwnerKey(primary), options);
  }

  /** Any other resource: `map` says which keys one of its objects concerns. */
  watches<U extends KubeObject>(resource: GroupVersionResource, map: MapFunc<U>, options: WatchOptions<U> = {}): this {
    return this.addWatch(resource, map, options);
  }

  /** Workers reconciling different keys at once: a number, or an int flag that sets it. */
  workers(count: number | FlagDefinition<number>): this {
    this.workerCount = count;
    return this;
  }

  /** Retry delays for failed reconciles. Default: client-go's controller rate limiter. */
  rateLimiter(factory: () => RateLimiter<string>): this {
    this.limiter = factory;
    return this;
  }

  /** Keys to reconcile each time the controller starts leading, for controllers driven by time rather than by objects. */
  enqueueAtStart(...keys: string[]): this {
    this.startKeys.push(...keys);
    return this;
  }

  /** Finishes the controller: `setup` runs once per process, before the informers start, and returns the reconciler. */
  complete(setup: Setup<T>): ControllerDescriptor {
    const spec = {
      name: this.name,
      primary: this.primary,
      watched: [...this.watched],
      workers: this.workerCount,
      rateLimiter: this.limiter,
      startKeys: [...this.startKeys],
      setup: setup as unknown as Setup<KubeObject>,
    };
    const workerFlag = typeof this.workerCount === "number" ? [] : [this.workerCount];
    return {
      name: this.name,
      aliases: this.aliasNames,
      enabledByDefault: this.onByDefault,
      ...(this.account ? { serviceAccountName: this.account } : {}),
      flags: [...this.extraFlags, ...workerFlag],
      create: (context) => buildController(spec, context),
    };
  }

  private addWatch<U extends KubeObject>(resource: GroupVersionResource, map: MapFunc<U>, options: WatchOptions<U>): this {
    this.watched.push({
      resource,
      scope: options.scope,
      map: map as MapFunc<KubeObject>,
      predicates: (options.predicates ?? []) as readonly Predicate<KubeObject>[],
    });
    return this;
  }
}

interface ControllerSpec {
  name: string;
  primary: Primary | undefined;
  watched: readonly Watched[];
  workers: number | FlagDefinition<number>;
  rateLimiter: () => RateLimiter<string>;
  startKeys: readonly string[];
  setup: Setup<KubeObject>;
}

async function buildController(spec: ControllerSpec, context: ControllerContext): Promise<RunningController> {
  const { informers, logger } = context;
  const queue = new RateLimitingQueue<string>(spec.rateLimiter(), { name: spec.name, metricsProvider: context.workqueueMetrics });
  // Every cache the controller reads; the manager waits for these before `run`.
  const caches: CacheSyncSource[] = [];
  const informer = <U extends KubeObject>(resource: GroupVersionResource, scope: InformerScope = {}, metadataOnly = false) => {
    const shared = (metadataOnly ? informers.forMetadata(resource, scope) : informers.forResource(resource, scope)) as unknown as ResourceInformer<U>;
    if (!caches.includes(shared.informer)) caches.push(shared.informer);
    return shared;
  };

  const { primary } = spec;
  let primaryCache: ResourceInformer<KubeObject> | undefined;
  const mapContext = { values: context.values, primaryObjects: () => primaryCache?.lister.list() ?? [] };
  const startPrimary = () => {
    if (!primary) return;
    primaryCache = informer(primary.resource, primary.options.scope, primary.options.metadataOnly);
    if (primary.options.events === "manual") return;
    const { resyncPeriod } = primary.options;
    const resyncPeriodMs = resyncPeriod === undefined || typeof resyncPeriod === "number" ? resyncPeriod : context.values.get(resyncPeriod);
    primaryCache.informer.addEventHandler(
      mappingHandler(queue, ownKey, primary.options.predicates ?? [], mapContext),
      resyncPeriodMs === undefined ? {} : { resyncPeriodMs },
    );
  };
  const gate = primary?.options.waitForCrd ? new CrdGate(informers, primary.resource) : undefined;
  if (gate) caches.push(gate.informer);
  else startPrimary();
  for (const watch of spec.watched) {
    informer(watch.resource, watch.scope).informer.addEventHandler(mappingHandler(queue, watch.map, watch.predicates, mapContext));
  }

  const cached = (key: string) => primaryCache?.informer.getIndexer().getByKey(key);
  const reconciler = toFunc(
    await spec.setup({
      ...context,
      queue,
      cached,
      watch: <U extends KubeObject>(resource: GroupVersionResource, handler: ResourceEventHandler<U>, scope?: InformerScope) => {
        const shared = informer<U>(resource, scope);
        shared.informer.addEventHandler(handler);
        return shared;
      },
      informer: <U extends KubeObject>(resource: GroupVersionResource, scope?: InformerScope) => informer<U>(resource, scope),
    }),
  );
  const workers = typeof spec.workers === "number" ? spec.workers : context.values.get(spec.workers);
  const runner = new ReconcileRunner<string>({
    name: spec.name,
    queue,
    workers,
    logger,
    metrics: context.reconcileMetrics,
    reconciler: {
      reconcile: (key, signal) => reconciler({ key, ...splitMetaNamespaceKey(key), object: cached(key) }, signal),
    },
  });

  return {
    informers: caches,
    healthCheck: runner.healthCheck(),
    status: () => ({ loops: [runner.status()] }),
    async run(stop, abort) {
      if (gate) {
        if (!gate.isEstablished) {
          logger.warn({ crd: gate.crdName }, `the ${gate.crdName} CustomResourceDefinition is not installed (or not established); the controller stays idle until it is`);
        }
        if (!(await gate.wait(stop))) return;
        logger.info({ crd: gate.crdName }, "CustomResourceDefinition established; starting");
        if (!primaryCache) {
          startPrimary();
          informers.start(stop);
        }
        if (!(await waitForNamedCacheSync(spec.name, caches, stop, { logger }))) return;
      }
      for (const key of spec.startKeys) queue.add(key);
      await runner.run(stop, abort);
    },
  };
}

function toFunc<T extends KubeObject>(reconciler: ReconcilerLike<T>): ReconcileFunc<T> {
  return typeof reconciler === "function" ? reconciler : (request, signal) => reconciler.reconcile(request, signal);
}
