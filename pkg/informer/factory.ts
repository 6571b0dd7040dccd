// One informer per collection view, shared by every controller that asks for it
// (client-go's SharedInformerFactory, dynamic and typed in one).
import { type Clock, realClock } from "../clock/clock.ts";
import type { ListerWatcherScope, PartialObjectMetadata } from "../kube/dynamic-client.ts";
import { type GroupVersionResource, gvrString } from "../kube/gvr.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import { CacheDemand, type CacheRead } from "./cache-demand.ts";
import { DeferredListerWatcher } from "./deferred-lister-watcher.ts";
import { checkFieldPaths, type FieldPath, guardsProjectedFieldsByDefault } from "./field-projection.ts";
import { heldVersionsWhileFilled } from "./held-versions.ts";
import { type InformerMetrics, type InformerMetricsProvider, informerMetricsFor } from "./metrics.ts";
import { Lister } from "./lister.ts";
import type { InformerSharding, ShardPlan } from "./namespace-share.ts";
import { logShardFilterMode, serverAppliesShardSelector } from "./shard-filter-probe.ts";
import type { HashRange } from "../sharding/hash-range.ts";
import { SharedIndexInformer, type SharedIndexInformerOptions } from "./shared-informer.ts";

/** Which part of a collection an informer sees. */
export interface InformerScope {
  /** undefined: the factory's namespace; "": all namespaces (or a cluster-scoped resource). */
  namespace?: string | undefined;
  /** Only objects whose labels match, e.g. "app=web". */
  labelSelector?: string | undefined;
  /** Only objects whose fields match, e.g. "spec.nodeName=node-1". */
  fieldSelector?: string | undefined;
}

export interface SharedInformerFactoryOptions {
  /** Builds the ListerWatcher of one informer; it must apply the namespace and selectors it is given. */
  listerWatcherFor(gvr: GroupVersionResource, request: ListerWatcherScope): ListerWatcher;
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
  /**
   * Objects of informers that keep only declared fields throw when a field they do not keep is
   * read (FieldProjection.guard), so a reader that forgot to declare one fails its tests.
   * Default: on when NODE_ENV is "test" in the running process (bun test sets it), off otherwise
   * (no cost), however the program was built.
   */
  guardProjectedFields?: boolean;
  /**
   * Cache only a share of the namespaces (sharded mode): informers of namespaced resources
   * listed across all namespaces keep only the namespaces whose name hashes into the share's
   * ranges, following its changes; the others (cluster-scoped resources, an explicit namespace)
   * keep everything. Absent: every informer keeps its whole collection, and nothing more is asked
   * of the API server.
   */
  sharding?: InformerSharding;
}

/** What a reader of a resource's objects declares about them. */
export interface ReadOptions {
  /**
   * The fields it reads (besides metadata, which is always kept), as dotted paths such as
   * "status.phase"; a path through an array applies to each element. `[]` reads metadata only:
   * the cache keeps apiVersion, kind and metadata of each object (still listed whole; for a
   * metadata-only list and watch, see `forMetadata`). Absent: whole objects. The shared informer
   * keeps the union of its readers' fields, or whole objects when one of them gives no `fields`.
   * Declare them before the informers start: a started cache cannot widen.
   */
  fields?: readonly FieldPath[] | undefined;
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
  gvr: GroupVersionResource;
  request: ListerWatcherScope;
  description: string;
  shared: ResourceInformer<KubeObject>;
  /** What its readers read; fixed when it starts. */
  demand: CacheDemand;
  /** Where it lists and watches: metadata only or whole objects, chosen when it starts. */
  source: DeferredListerWatcher;
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
  /** Whether the API server applies shardSelector, asked once for all this factory's sharded informers, and logged once (see shard-filter-probe.ts). */
  private serverFiltersByShard: Promise<boolean> | undefined;

  constructor(private readonly options: SharedInformerFactoryOptions) {
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * The shared informer of any resource (CRDs included), created on first request, caching the
   * resource's object type: whole objects, or the fields its readers declared (see ReadOptions).
   */
  forResource<T extends KubeObject>(gvr: GroupVersionResource<T>, scope: InformerScope = {}, options: ReadOptions = {}): ResourceInformer<T> {
    const read: CacheRead = options.fields ? { kind: "fields", fields: options.fields } : { kind: "whole" };
    const request = this.requestFor(scope, false);
    const key = this.keyOf(gvr, request);
    // A cache started with metadata only cannot widen: one of the objects goes beside it.
    const beside = `${key}+objects`;
    const existing = this.entries.get(key);
    if (this.entries.has(beside) || (existing?.demand.isFixed && existing.demand.wantsMetadataOnly)) return this.shared(gvr, request, beside, "objects", read);
    return this.shared(gvr, request, key, "", read);
  }

  /** A shared informer that caches PartialObjectMetadata only: far less memory for big collections. */
  forMetadata(gvr: GroupVersionResource, scope: InformerScope = {}): ResourceInformer<PartialObjectMetadata> {
    const request = this.requestFor(scope, true);
    return this.shared(gvr, request, this.keyOf(gvr, request), "metadataOnly", { kind: "metadata" });
  }

  /**
   * For a reader of metadata only: the shared informer of the resource's objects when some other
   * reader asks for more than metadata before it starts (one cache, not two), else one that
   * lists and caches metadata only. Its objects carry their metadata either way; their kind and
   * apiVersion may be PartialObjectMetadata's.
   */
  forMetadataReader(gvr: GroupVersionResource, scope: InformerScope = {}): ResourceInformer<PartialObjectMetadata> {
    const request = this.requestFor(scope, false);
    return this.shared(gvr, request, this.keyOf(gvr, request), "", { kind: "metadata" });
  }

  /** Every informer requested so far (and not removed), for reading their state. */
  list(): readonly SharedIndexInformer<KubeObject>[] {
    return [...this.entries.values()].map((entry) => entry.shared.informer);
  }

  /**
   * Starts every informer not started yet, fixing what each keeps; call again after requesting
   * more. They stop when `signal` aborts or on shutdown.
   */
  start(signal: AbortSignal): void {
    if (this.stopAll.signal.aborted) return;
    for (const entry of this.entries.values()) {
      if (entry.shared.informer.isStarted) continue;
      entry.demand.fix();
      entry.source.choose(entry.demand.wantsMetadataOnly);
      // A metadata reader's informer lists metadata only when no reader wanted more: its name says so.
      if (entry.demand.wantsMetadataOnly && !entry.request.metadataOnly) {
        entry.description = describe(entry.gvr, entry.request, "metadataOnly");
        entry.shared.informer.rename(entry.description);
      }
      const stop = AbortSignal.any([signal, this.stopAll.signal, entry.stop.signal]);
      entry.run = entry.shared.informer.run(stop).catch((err: unknown) => {
        this.logger.error({ err, informer: entry.description }, "informer failed");
      });
    }
  }

  /**
   * True when every informer has the objects of every namespace in `ranges` in its cache: sharded
   * ones have listed those ranges (after the share gained them), the others have synced. A
   * member of the shard ring starts acting on namespaces it gained only once this holds.
   */
  hasSyncedRanges(ranges: readonly HashRange[]): boolean {
    return [...this.entries.values()].every((entry) => entry.shared.informer.hasSyncedRanges(ranges));
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

  /** The entry under `key`, created on first request; `read` is what this reader reads of it. */
  private shared<T extends KubeObject>(gvr: GroupVersionResource, request: ListerWatcherScope, key: string, qualifier: string, read: CacheRead): ResourceInformer<T> {
    // A bad path fails before anything is created.
    if (read.kind === "fields") checkFieldPaths(read.fields);
    const entry = this.entries.get(key) ?? this.created(gvr, request, key, qualifier);
    entry.demand.add(read);
    // Known already when some reader wants more than metadata (or only metadata is ever listed); else decided at start.
    if (request.metadataOnly || !entry.demand.wantsMetadataOnly) entry.source.choose(entry.demand.wantsMetadataOnly);
    return asObjectsOf<T>(entry.shared);
  }

  private created(gvr: GroupVersionResource, request: ListerWatcherScope, key: string, qualifier: string): Entry {
    const description = describe(gvr, request, qualifier);
    const metrics = this.reserveMetrics(gvr);
    const demand = new CacheDemand(description, "kind" in gvr && typeof gvr.kind === "string" ? gvr.kind : gvr.resource);
    // The informer is made below, before the source is chosen (see `shared`).
    const source: DeferredListerWatcher = new DeferredListerWatcher((metadataOnly) =>
      this.options.listerWatcherFor(gvr, { ...request, metadataOnly, keptFields: () => demand.keptFields(), heldVersions: heldVersionsWhileFilled(informer.getIndexer()) }),
    );
    const guard = this.options.guardProjectedFields ?? guardsProjectedFieldsByDefault();
    // What is kept is known once the informer starts; the reflector calls this only after.
    let keep: ((obj: KubeObject) => KubeObject) | undefined;
    const informer: SharedIndexInformer<KubeObject> = new SharedIndexInformer<KubeObject>(source, {
      ...this.options.informerOptions,
      name: description,
      defaultResyncMs: this.options.defaultResyncMs,
      clock: this.clock,
      logger: this.logger,
      transform: (obj) => (keep ??= demand.transform(guard))(obj),
      ...(metrics && { metrics: metrics.metrics }),
      ...this.shardPlanOption(gvr, request, source, description),
    });
    const entry: Entry = {
      gvr,
      request,
      description,
      shared: { informer, lister: new Lister(informer.getIndexer()) },
      demand,
      source,
      stop: new AbortController(),
      ...(metrics && { metricsResource: metrics.resource }),
    };
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * How an informer caches a share of the namespaces: only with a share, and for a namespaced
   * resource listed across all namespaces; decided when it starts (a resource given without its
   * scope is looked up then). A lookup that fails leaves the informer whole: more memory, never
   * a namespace missing.
   */
  private shardPlanOption(gvr: GroupVersionResource, request: ListerWatcherScope, source: ListerWatcher, description: string): Pick<SharedIndexInformerOptions<KubeObject>, "shardPlan"> {
    const sharding = this.options.sharding;
    if (!sharding || request.namespace) return {};
    const shardPlan = async (signal: AbortSignal): Promise<ShardPlan | undefined> => {
      const scope = "namespaced" in gvr && typeof gvr.namespaced === "boolean" ? gvr.namespaced : await sharding.isNamespaced(gvr).catch((err: unknown) => {
        this.logger.warn({ err, informer: description }, "could not tell whether the resource is namespaced; caching all of it");
        return false;
      });
      if (!scope) return undefined;
      return { share: sharding.share, serverFilters: await this.serverFilters(source, signal) };
    };
    return { shardPlan };
  }

  /** Asks the API server once; a probe that fails is asked again by the next informer, and this one filters by itself meanwhile. */
  private serverFilters(source: ListerWatcher, signal: AbortSignal): Promise<boolean> {
    this.serverFiltersByShard ??= serverAppliesShardSelector(source, signal).then(
      (serverFilters) => {
        logShardFilterMode(this.logger, serverFilters);
        return serverFilters;
      },
      (err: unknown) => {
        this.serverFiltersByShard = undefined;
        if (!signal.aborted) this.logger.warn({ err }, "could not tell whether the API server filters by shard; filtering in this process");
        return false;
      },
    );
    return this.serverFiltersByShard;
  }

  /** The metrics of the first informer of `gvr`; undefined for the others, or without a provider. */
  private reserveMetrics(gvr: GroupVersionResource): { metrics: InformerMetrics; resource: string } | undefined {
    const configured = this.options.metrics;
    const resource = gvrString(gvr);
    if (!configured || this.metricsReserved.has(resource)) return undefined;
    this.metricsReserved.add(resource);
    return { metrics: informerMetricsFor(configured.provider, { name: configured.name, resource: gvr }), resource };
  }

  private requestFor(scope: InformerScope, metadataOnly: boolean): ListerWatcherScope {
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

  private keyOf(gvr: GroupVersionResource, request: ListerWatcherScope): string {
    return JSON.stringify([gvr.group, gvr.version, gvr.resource, request.namespace, request.labelSelector, request.fieldSelector, request.metadataOnly]);
  }
}

/** "pods.v1", or "pods.v1{namespace=a,labelSelector=b,metadataOnly}" for a narrower view or another informer of the same one. */
function describe(gvr: GroupVersionResource, request: ListerWatcherScope, qualifier: string): string {
  const qualifiers = [
    request.namespace ? `namespace=${request.namespace}` : "",
    request.labelSelector ? `labelSelector=${request.labelSelector}` : "",
    request.fieldSelector ? `fieldSelector=${request.fieldSelector}` : "",
    qualifier,
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
