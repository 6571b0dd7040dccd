// What `complete` makes of a builder's description: a controller core with the primary
// resource, the watches and the reconciler the setup returns, as a runnable for the manager.
import { Controller, isWorkerCount, maxWorkers } from "../controller/controller.ts";
import type { KeyQueue } from "../controller/handlers.ts";
import type { ReconcileResult } from "../controller/reconciler.ts";
import { splitMetaNamespaceKey } from "../informer/keys.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ControllerContext } from "../manager/controller-descriptor.ts";
import type { Runnable } from "../manager/runnable.ts";
import type { FlagDefinition } from "../options/flag-definition.ts";
import type { FlagValues } from "../options/flag-values.ts";
import { UsageError } from "../options/usage-error.ts";
import type { RateLimiter } from "../workqueue/rate-limiters.ts";
import type { MapContext } from "./map-func.ts";
import { type Primary, PrimaryResource } from "./primary-resource.ts";

/** What one reconcile is about. */
export interface ReconcileRequest<T extends KubeObject> {
  /** "namespace/name", or "name" for a cluster-scoped object. */
  key: string;
  /** "" for a cluster-scoped object. */
  namespace: string;
  /** The object's name. */
  name: string;
  /** The primary object as the cache has it now; undefined once it is gone (or when there is no primary). */
  object: T | undefined;
}

/**
 * Resolve to finish, return `{ requeueAfterMs }` to look again later or `{ requeue: true }` to look again
 * after backoff without an error, throw to be retried with backoff (TerminalError: not retried).
 * `signal` aborts when the process must stop at once.
 */
export type ReconcileFunc<T extends KubeObject> = (request: ReconcileRequest<T>, signal: AbortSignal) => Promise<ReconcileResult>;

/** What `complete`'s setup returns: the reconcile function, or an object that has one. */
export type ReconcilerLike<T extends KubeObject> =
  | ReconcileFunc<T>
  | {
      /** Reconciles one key; see ReconcileFunc. */
      reconcile: ReconcileFunc<T>;
    };

/**
 * What `complete`'s setup function gets: the process's shared machinery and this controller's core.
 * Call `watch` and `informer` in the setup itself, before the informers start; never from inside a
 * reconcile (an informer asked for later is not started, and its cache stays empty). Keep what they
 * return and read its lister in the reconcile.
 */
export interface SetupContext<T extends KubeObject> extends ControllerContext {
  /** This controller's workqueue. */
  queue: KeyQueue;
  /** The cached primary object with this key, if any. */
  cached(key: string): T | undefined;
  /** Adds a handler to the shared informer of a resource; the controller waits for that cache before reconciling. */
  watch: Controller["watch"];
  /** The shared informer of a resource, for reading its cache (with indexers if given); the controller waits for that cache too. */
  informer: Controller["informer"];
}

/** `complete`'s argument: runs once per process, before the informers start, and returns the reconciler. */
export type Setup<T extends KubeObject> = (context: SetupContext<T>) => ReconcilerLike<T> | Promise<ReconcilerLike<T>>;

/** One `owns` or `watches`: connects itself to the core. The context's index names are checked where the map function is given. */
export type WatchSpec = (core: Controller, context: MapContext<KubeObject, string>) => void;

export interface ControllerSpec<T extends KubeObject> {
  name: string;
  primary: Primary<T> | undefined;
  watches: readonly WatchSpec[];
  workers: number | FlagDefinition<number>;
  rateLimiter: (() => RateLimiter<string>) | undefined;
  startKeys: readonly string[];
  setup: Setup<T>;
}

export async function buildController<T extends KubeObject>(spec: ControllerSpec<T>, context: ControllerContext): Promise<Runnable> {
  const { values, informers, logger } = context;
  const core = new Controller<string>({
    name: spec.name,
    informers,
    workers: typeof spec.workers === "number" ? spec.workers : flaggedWorkers(spec.workers, values),
    ...(spec.rateLimiter && { rateLimiter: spec.rateLimiter() }),
    workqueueMetrics: context.workqueueMetrics,
    reconcileObserver: context.reconcileObserver,
    logger,
    ...(context.clock && { clock: context.clock }),
    ...(context.ownership && { sharding: { ownership: context.ownership } }),
  });
  const primary = spec.primary && new PrimaryResource(core, spec.primary, context);
  const cached = (key: string) => primary?.cached(key);
  const mapContext = mapContextOver(primary, values);
  for (const watch of spec.watches) watch(core, mapContext);
  const reconciler = await spec.setup({
    ...context,
    queue: core.queue,
    cached,
    watch: (resource, handler, options) => core.watch(resource, handler, options),
    informer: (resource, options) => core.informer(resource, options),
  });
  const reconcile = typeof reconciler === "function" ? reconciler : reconciler.reconcile.bind(reconciler);
  core.reconcileWith({ reconcile: (key, signal) => reconcile({ key, ...splitMetaNamespaceKey(key), object: cached(key) }, signal) });
  return {
    name: spec.name,
    get caches() {
      return core.caches;
    },
    healthChecks: [core.healthCheck()],
    status: () => ({ loops: [core.status()] }),
    async start(stop, abort) {
      if (primary && !(await primary.connected(stop))) return;
      for (const key of spec.startKeys) core.queue.add(key);
      await core.run(stop, abort);
    },
  };
}

/** What the map functions of `watches` read the primary cache through; empty until it exists. */
function mapContextOver<T extends KubeObject>(primary: PrimaryResource<T> | undefined, values: MapContext["values"]): MapContext<T, string> {
  return {
    values,
    primaryObjects: () => primary?.list() ?? [],
    primariesByIndex: (index, value) => primary?.byIndex(index, value) ?? [],
  };
}

/** A workers flag's value; one out of range is the user's mistake, named by the flag (its own bounds may be wider). */
function flaggedWorkers(flag: FlagDefinition<number>, values: FlagValues): number {
  const count = values.get(flag);
  if (isWorkerCount(count)) return count;
  throw new UsageError(`invalid value ${count} for --${flag.name}: expected a number of workers from 1 to ${maxWorkers}`);
}
