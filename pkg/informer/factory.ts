// One informer per collection view, shared by every controller that asks for it
// (client-go's SharedInformerFactory, dynamic and typed in one).
import { type Clock, realClock } from "../clock/clock.ts";
import type { PartialObjectMetadata } from "../kube/dynamic-client.ts";
import { type GroupVersionResource, gvrString } from "../kube/gvr.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import { type InformerMetrics, type InformerMetricsProvider, informerMetricsFor } from "./informer-metrics.ts";
import { Lister } from "./lister.ts";
import { SharedIndexInformer, type SharedIndexInformerOptions } from "./shared-informer.ts";

/** Which part of a collection an informer sees. */
export interface InformerScope {
  /** undefined: the factory's namespace; "": all namespaces (or a cluster-scoped resource). */
  namespace?: string;
  /** Only objects whose labels match, e.g. "app=web". */
  labelSelector?: string;
  /** Only objects whose fields match, e.g. "spec.nodeName=node-1". */
  fieldSelector?: string;
}

/** What `listerWatcherFor` is asked for: the scope, resolved, and whether only metadata is wanted. */
export interface ListerWatcherRequest {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** List and watch PartialObjectMetadata instead of full objects. */
  metadataOnly: boolean;
}

export interface SharedInformerFactoryOptions {
  /** Builds the ListerWatcher of one informer; it must apply the namespace and selectors it is given. */
  listerWatcherFor(gvr: GroupVersionResource, request: ListerWatcherRequest): ListerWatcher;
  /** Resync period of handlers added without one; 0: none. */
  defaultResyncMs: number;
  clock?: Clock;
  logger?: Logger;
  /** Namespace every informer is limited to unless its scope says otherwise. Default: all. */
  namespace?: string;
  /** Adjusts the selectors of every informer the factory creates. */
  tweakListOptions?: (selectors: Pick<InformerScope, "labelSelector" | "fieldSelector">) => Pick<InformerScope, "labelSelector" | "fieldSelector">;
  /** Tuning and hooks given to every informer. */
  informerOptions?: Pick<SharedIndexInformerOptions<KubeObject>, "reflector" | "onHandlerError" | "random">;
  /**
   * Informer metrics, labelled with `name` and each informer's resource. As in client-go, the
   * first informer of a resource reports them; others of the same resource (another scope,
   * metadata-only) stay silent, so no two write the same series.
   */
  metrics?: { provider: InformerMetricsProvider; name: string };
}

/** An informer with a lister over its cache. */
export interface ResourceInformer<T extends KubeObject> {
  /** The shared informer: its handlers, indexes and sync state. */
  readonly informer: SharedIndexInformer<T>;
  /** Reads its cache by name, namespace and labels. */
  readonly lister: Lister<T>;
}

/** What `waitForCacheSync` found. */
export interface CacheSyncResult {
  /** True when every informer had synced. */
  synced: boolean;
  /** Informers that had not synced, named by gvr string (plus their scope when not the default). */
  unsynced: string[];
}

interface Entry {
  description: string;
  shared: ResourceInformer<KubeObject>;
  run?: Promise<void>;
  /** Stops this informer alone (see `remove`). */
  stop: AbortController;
  /** The resource whose metrics this informer reports, if it does. */
  metricsResource?: string;
}

/** How often waitForCacheSync looks, as client-go's WaitForCacheSync. */
const syncPollMs = 100;

/**
 * The process's informers, one per resource and scope, shared by every controller that asks
 * (`ControllerContext.informers`). Ask for informers while setting up: the manager starts them once,
 * and one asked for afterwards is not started.
 *
 * @hideconstructor
 */
export class SharedInformerFactory {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly stopAll = new AbortController();
  /** Resources (gvr strings) whose metrics an informer reports already. */
  private readonly metricsReserved = new Set<string>();

  constructor(private readonly options: SharedInformerFactoryOptions) {
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** The shared informer of any resource (CRDs included), created on first request, caching the resource's object type. */
  forResource<T extends KubeObject>(gvr: GroupVersionResource<T>, scope: InformerScope = {}): ResourceInformer<T> {
    return this.shared(gvr, scope, false);
  }

  /** A shared informer that caches PartialObjectMetadata only: far less memory for big collections. */
  forMetadata(gvr: GroupVersionResource, scope: InformerScope = {}): ResourceInformer<PartialObjectMetadata> {
    return this.shared(gvr, scope, true);
  }

  /** Every informer requested so far (and not removed), for reading their state. */
  list(): readonly SharedIndexInformer<KubeObject>[] {
    return [...this.entries.values()].map((entry) => entry.shared.informer);
  }

  /** Starts every informer not started yet; call again after requesting more. They stop when `signal` aborts or on shutdown. */
  start(signal: AbortSignal): void {
    if (this.stopAll.signal.aborted) return;
    for (const entry of this.entries.values()) {
      if (entry.shared.informer.isStarted) continue;
      const stop = AbortSignal.any([signal, this.stopAll.signal, entry.stop.signal]);
      entry.run = entry.shared.informer.run(stop).catch((err: unknown) => {
        this.logger.error({ err, informer: entry.description }, "informer failed");
      });
    }
  }

  /** Waits until every requested informer has synced, `signal` aborts, or `timeoutMs` passes. */
  async waitForCacheSync(signal: AbortSignal, timeoutMs?: number): Promise<CacheSyncResult> {
    const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : this.clock.monotonic() + timeoutMs;
    for (;;) {
      const unsynced = [...this.entries.values()].filter((e) => !e.shared.informer.hasSynced()).map((e) => e.description);
      const remainingMs = deadline - this.clock.monotonic();
      if (unsynced.length === 0 || signal.aborted || remainingMs <= 0) return { synced: unsynced.length === 0, unsynced };
      await this.clock.sleep(Math.min(syncPollMs, remainingMs), signal).catch(() => undefined);
    }
  }

  /**
   * Stops and forgets the informer of a resource the API server no longer serves (a deleted CRD),
   * so its reflector does not retry forever and cache sync no longer waits for it; a later request
   * creates a fresh one. Refuses (false) while any handler is still registered on it: remove
   * yours first. Resolves once the informer has stopped.
   */
  async remove(gvr: GroupVersionResource, scope: InformerScope = {}, metadataOnly = false): Promise<boolean> {
    const key = this.keyOf(gvr, this.requestFor(scope, metadataOnly));
    const entry = this.entries.get(key);
    if (!entry) return true;
    if (entry.shared.informer.handlerCount > 0) return false;
    this.entries.delete(key);
    if (entry.metricsResource) this.metricsReserved.delete(entry.metricsResource);
    entry.stop.abort();
    await entry.run;
    return true;
  }

  /** Stops every informer and resolves once all have ended; the factory starts nothing afterwards. */
  async shutdown(): Promise<void> {
    this.stopAll.abort();
    await Promise.all([...this.entries.values()].map((entry) => entry.run));
  }

  private shared<T extends KubeObject>(gvr: GroupVersionResource, scope: InformerScope, metadataOnly: boolean): ResourceInformer<T> {
    const request = this.requestFor(scope, metadataOnly);
    const key = this.keyOf(gvr, request);
    let entry = this.entries.get(key);
    if (!entry) {
      const description = describe(gvr, request);
      const metrics = this.reserveMetrics(gvr);
      const informer = new SharedIndexInformer<KubeObject>(this.options.listerWatcherFor(gvr, request), {
        ...this.options.informerOptions,
        name: description,
        defaultResyncMs: this.options.defaultResyncMs,
        clock: this.clock,
        logger: this.logger,
        ...(metrics && { metrics: metrics.metrics }),
      });
      entry = {
        description,
        shared: { informer, lister: new Lister(informer.getIndexer()) },
        stop: new AbortController(),
        ...(metrics && { metricsResource: metrics.resource }),
      };
      this.entries.set(key, entry);
    }
    return asObjectsOf<T>(entry.shared);
  }

  /** The metrics of the first informer of `gvr`; undefined for the others, or without a provider. */
  private reserveMetrics(gvr: GroupVersionResource): { metrics: InformerMetrics; resource: string } | undefined {
    const configured = this.options.metrics;
    const resource = gvrString(gvr);
    if (!configured || this.metricsReserved.has(resource)) return undefined;
    this.metricsReserved.add(resource);
    return { metrics: informerMetricsFor(configured.provider, { name: configured.name, resource: gvr }), resource };
  }

  private requestFor(scope: InformerScope, metadataOnly: boolean): ListerWatcherRequest {
    const selectors = this.options.tweakListOptions
      ? this.options.tweakListOptions({ labelSelector: scope.labelSelector, fieldSelector: scope.fieldSelector })
      : scope;
    // Empty strings mean "no restriction", the same as leaving them out.
    return {
      namespace: (scope.namespace ?? this.options.namespace) || undefined,
      labelSelector: selectors.labelSelector || undefined,
      fieldSelector: selectors.fieldSelector || undefined,
      metadataOnly,
    };
  }

  private keyOf(gvr: GroupVersionResource, request: ListerWatcherRequest): string {
    return JSON.stringify([gvr.group, gvr.version, gvr.resource, request.namespace, request.labelSelector, request.fieldSelector, request.metadataOnly]);
  }
}

/** "pods.v1", or "pods.v1{namespace=a,labelSelector=b,metadataOnly}" for a narrower view. */
function describe(gvr: GroupVersionResource, request: ListerWatcherRequest): string {
  const qualifiers = [
    request.namespace ? `namespace=${request.namespace}` : "",
    request.labelSelector ? `labelSelector=${request.labelSelector}` : "",
    request.fieldSelector ? `fieldSelector=${request.fieldSelector}` : "",
    request.metadataOnly ? "metadataOnly" : "",
  ].filter(Boolean);
  return qualifiers.length > 0 ? `${gvrString(gvr)}{${qualifiers.join(",")}}` : gvrString(gvr);
}

/**
 * The one place the factory's untyped store meets the caller's type. Sound because an entry serves
 * exactly one resource view, so its objects are what that resource names (PartialObjectMetadata for
 * a metadata-only view); TypeScript cannot see that through the map of entries.
 */
function asObjectsOf<T extends KubeObject>(shared: ResourceInformer<KubeObject>): ResourceInformer<T> {
  const erased: unknown = shared;
  return erased as ResourceInformer<T>;
}
