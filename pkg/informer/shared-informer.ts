// client-go's SharedIndexInformer: the pipeline reflector → queue → indexer → handlers, shared
// by every handler interested in one collection.
//
//   Reflector ──add/update/delete/replace/bookmark──▶ RealFifo ──pop──▶ handleDelta ──▶ Indexer (the cache)
//                                                       ▲ resync                    └──▶ ProcessorListener per handler
import { type Clock, type Timer, realClock } from "../clock/clock.ts";
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import type { HashRange } from "../sharding/hash-range.ts";
import { DeletedFinalStateUnknown, type Delta, DroppedFromShare, finalStateOf, type SegmentId } from "./deltas.ts";
import { type ResourceEventHandler, isResync } from "./event-handler.ts";
import { GarbageHint } from "./garbage-hint.ts";
import { heldVersionsOf } from "./held-versions.ts";
import { namespaceIndex, namespaceIndexName } from "./index-funcs.ts";
import { Indexer } from "./indexer.ts";
import type { InformerMetrics } from "./metrics.ts";
import { deletionHandlingKeyFunc, metaNamespaceKeyFunc } from "./keys.ts";
import type { ShardPlan, ShardStatus } from "./namespace-share.ts";
import { type Notification, ProcessorListener } from "./processor-listener.ts";
import { RealFifo } from "./real-fifo.ts";
import { noReflectorCounters, Reflector, type ReflectorCounters, type ReflectorOptions } from "./reflector.ts";
import { ShardedReflector } from "./sharded-reflector.ts";
import type { IndexedStore, Indexers, ReflectorStore, Store } from "./store.ts";
import { dropManagedFields } from "./transform.ts";

/** A (re)list with at most this many objects added, changed or gone is applied to the cache in place. */
const inPlaceChangeLimit = 1000;

/** A list compared with the cache: see SharedIndexInformer.compareWithCache. */
interface ListedAgainstCache<T extends KubeObject> {
  /** The listed objects that have a key, and their keys and cached objects at the same places. */
  objects: readonly T[];
  keys: readonly string[];
  previous: (T | undefined)[];
  tombstones: DeletedFinalStateUnknown<T>[];
  /** Cached objects outside the part of the collection the list is of (a segment's): they stay. */
  kept: { keys: string[]; objects: T[] };
  /** Listed objects that are not the cached ones, and cached ones the list lacks. */
  changes: number;
}

/** A handler's resync period is never shorter than this. */
export const minimumResyncPeriodMs = 1000;

/** Which handler call failed, for `onHandlerError`. */
export interface HandlerErrorContext {
  /** The informer's name. */
  informer: string;
  /** Cache key of the object the handler was given. */
  key: string;
  /** Which of the handler's methods threw: "add", "update" or "delete". */
  event: Notification<KubeObject>["type"];
}

/** How an informer is set up; the factory makes informers with its own settings. */
export interface SharedIndexInformerOptions<T extends KubeObject> {
  /** Names the informer in logs, e.g. "pods.v1". */
  name?: string;
  /** Resync period of handlers added without one; 0 (default): no resync. */
  defaultResyncMs?: number;
  /** Default: the namespace index. */
  indexers?: Indexers<T>;
  /** Applied to every object before it is queued and cached. Default: drop managedFields. */
  transform?: (obj: T) => T;
  /** Default: the real clock. */
  clock?: Clock;
  /** Jitter's random source, like Math.random; tests pass a fixed one. */
  random?: () => number;
  /** Default: silent. */
  logger?: Logger;
  /** Tuning passed to the reflector. */
  reflector?: Pick<ReflectorOptions, "pageSize" | "watchIdleTimeoutMs" | "useWatchList" | "watchListTimeoutMs" | "backoff">;
  /** Told about every handler that threw or rejected, e.g. to count it in metrics. */
  onHandlerError?: (err: unknown, context: HandlerErrorContext) => void;
  /** The queue's length and processing times, and the cache's resourceVersion (client-go's informer_* metrics). */
  metrics?: InformerMetrics;
  /**
   * Asked once at start: whether to cache only a share of the namespaces, and how (the factory
   * answers for namespaced resources listed across all namespaces when it was given a share).
   * Undefined, or resolving undefined: the whole collection, with one reflector.
   */
  shardPlan?: (signal: AbortSignal) => Promise<ShardPlan | undefined>;
}

/** Options of `addEventHandler`. */
export interface EventHandlerOptions {
  /** Resync period for this handler (at least 1 s; 0: none). Default: the informer's. */
  resyncPeriodMs?: number;
}

/** A registered handler: whether it has caught up, and how to remove it. */
export interface EventHandlerRegistration {
  /** True once the informer synced and this handler has handled every object of the initial list. */
  hasSynced(): boolean;
  /** Stops delivering to the handler; resolves once a call in progress has returned. */
  remove(): Promise<void>;
}

/** What an informer has done since it started, for the status page. */
export interface InformerCounters extends ReflectorCounters {
  /** Handler calls that threw or rejected. */
  handlerErrors: number;
}

/**
 * One resource's informer, shared by every controller that reads the resource (`ResourceInformer.informer`):
 * it lists and watches, keeps the cache, and tells the handlers of every change. Made and started by the
 * informer factory; add handlers and indexers before it starts.
 *
 * @hideconstructor
 */
export class SharedIndexInformer<T extends KubeObject = KubeObject> {
  private informerName: string;
  private readonly clock: Clock;
  private readonly baseLogger: Logger;
  private logger: Logger;
  private readonly defaultResyncMs: number;
  private readonly onHandlerError: SharedIndexInformerOptions<T>["onHandlerError"];
  private readonly indexer: Indexer<T>;
  private readonly heldVersion: (namespace: string, name: string, resourceVersion: string) => T | undefined;
  private readonly queue: RealFifo<T>;
  private readonly listerWatcher: ListerWatcher<T>;
  private readonly makeReflector: (listerWatcher: ListerWatcher<T>, store: ReflectorStore<T>, name: string) => Reflector<T>;
  private readonly shardPlan: SharedIndexInformerOptions<T>["shardPlan"];
  /** Made at start, so that it takes the name the informer has by then (see rename). */
  private reflector: Pick<Reflector<T>, "run" | "lastError" | "lastSyncResourceVersion" | "counters"> | undefined;
  /** The same as `reflector` when the informer caches a share of the namespaces. */
  private sharded: ShardedReflector<T> | undefined;
  private readonly listeners = new Set<ProcessorListener<T>>();
  /** Listeners whose resync was due at the last resync check: unchanged-object updates go only to them. */
  private resyncingListeners = new Set<ProcessorListener<T>>();
  private resyncTimer: { timer: Timer; periodMs: number } | undefined;
  private watchErrorHandler: ((err: unknown) => void) | undefined;
  private handlerErrors = 0;
  private state: "new" | "running" | "stopped" = "new";
  private readonly garbage = new GarbageHint();
  /** Objects of the relist just applied, until the queue has let go of it (0: none). */
  private appliedRelistSize = 0;

  constructor(listerWatcher: ListerWatcher<T>, options: SharedIndexInformerOptions<T> = {}) {
    this.informerName = options.name ?? "informer";
    this.clock = options.clock ?? realClock;
    this.baseLogger = options.logger ?? silentLogger;
    this.logger = this.baseLogger.child({ informer: this.informerName });
    this.defaultResyncMs = options.defaultResyncMs ?? 0;
    this.onHandlerError = options.onHandlerError;
    this.indexer = new Indexer<T>(options.indexers ?? { [namespaceIndexName]: namespaceIndex }, options.metrics?.storeResourceVersion);
    this.heldVersion = heldVersionsOf(this.indexer);
    this.queue = new RealFifo<T>({ metrics: options.metrics, clock: this.clock });
    this.listerWatcher = listerWatcher;
    this.shardPlan = options.shardPlan;
    this.makeReflector = (source, store, name) =>
      new Reflector<T>(source, store, {
        ...options.reflector,
        name,
        clock: this.clock,
        logger: this.baseLogger,
        random: options.random,
        onError: (err) => this.watchErrorHandler?.(err),
        // Applied as objects arrive, so that what it drops never piles up behind a big list.
        transform: options.transform ?? dropManagedFields,
        cachedVersionOf: (obj) => this.cachedVersionOf(obj),
      });
  }

  /** e.g. "pods.v1", in logs, metrics and /readyz. */
  get name(): string {
    return this.informerName;
  }

  /** Names the informer otherwise; only before it starts (its factory knows what it lists only then). */
  rename(name: string): void {
    if (this.state !== "new") throw new Error(`informer ${this.informerName} has already started; cannot rename it ${name}`);
    this.informerName = name;
    this.logger = this.baseLogger.child({ informer: name });
  }

  /**
   * Registers a handler. Added after start, it first gets an add (isInInitialList = true) for
   * everything already cached. Throws once the informer has stopped.
   */
  addEventHandler(handler: ResourceEventHandler<T>, options: EventHandlerOptions = {}): EventHandlerRegistration {
    if (this.state === "stopped") throw new Error(`informer ${this.name} has stopped; handler not added`);
    const requested = options.resyncPeriodMs ?? this.defaultResyncMs;
    const resyncPeriodMs = requested > 0 ? Math.max(requested, minimumResyncPeriodMs) : 0;
    const listener = new ProcessorListener<T>(handler, resyncPeriodMs, this.clock.monotonic(), (err, notification) =>
      this.handlerFailed(err, notification),
    );
    if (this.state === "running") {
      for (const obj of this.indexer.list()) listener.add({ type: "add", obj, isInInitialList: true });
    }
    this.listeners.add(listener);
    if (this.state === "running") this.scheduleResync();
    return {
      hasSynced: () => this.queue.hasSynced() && listener.initialEventsHandled(),
      remove: () => {
        this.listeners.delete(listener);
        this.resyncingListeners.delete(listener);
        return listener.stop();
      },
    };
  }

  /** Adds index functions; only before the informer starts. */
  addIndexers(indexers: Indexers<T>): void {
    if (this.state !== "new") throw new Error(`informer ${this.name} has already started; cannot add indexers`);
    this.indexer.addIndexers(indexers);
  }

  /** Called with every failed list or watch (the informer retries regardless); only before start. */
  setWatchErrorHandler(handler: (err: unknown) => void): void {
    if (this.state !== "new") throw new Error(`informer ${this.name} has already started; cannot set the watch error handler`);
    this.watchErrorHandler = handler;
  }

  /**
   * True when the objects of every namespace in `ranges` are in the cache: for a sharded informer,
   * the ranges are in its share and the segments covering them have listed; otherwise once it
   * synced (it caches every namespace). Only the cache is meant: handlers may still be at work.
   */
  hasSyncedRanges(ranges: readonly HashRange[]): boolean {
    return this.sharded ? this.queue.hasSynced() && this.sharded.hasSyncedRanges(ranges) : this.hasSynced();
  }

  /** Which namespaces it caches and how, once it started sharded; undefined otherwise. */
  get shardStatus(): ShardStatus | undefined {
    return this.sharded?.status();
  }

  /** True once the first list is in the cache and every handler has handled its part of it. */
  hasSynced(): boolean {
    return this.queue.hasSynced() && [...this.listeners].every((listener) => listener.initialEventsHandled());
  }

  /** Why the informer has not (re)filled its cache yet: the last list or watch failure since it last did. */
  get lastListError(): unknown {
    return this.reflector?.lastError;
  }

  /** The resourceVersion of the last list, watch event or bookmark the informer received. */
  get lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion ?? "";
  }

  /** Lists, watches, relists, errors and handler failures since start. */
  get counters(): InformerCounters {
    const counters = this.reflector?.counters ?? noReflectorCounters();
    return { ...counters, handlerErrors: this.handlerErrors };
  }

  /** Handlers registered and not removed. */
  get handlerCount(): number {
    return this.listeners.size;
  }

  /** True once `run` was called. */
  get isStarted(): boolean {
    return this.state !== "new";
  }

  /** The cache with its indices, read-only: the informer alone writes it. Objects in it are shared: never mutate them. */
  getIndexer(): IndexedStore<T> {
    return this.indexer;
  }

  /** The cache, without the index methods. */
  getStore(): Store<T> {
    return this.indexer;
  }

  /** Runs until `signal` aborts, then stops the handlers and resolves. An informer runs once. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.state !== "new") throw new Error(`informer ${this.name} was already started`);
    this.state = "running";
    this.logger.debug("starting informer");
    this.scheduleResync();
    try {
      await Promise.all([this.reflect(signal), this.processLoop(signal)]);
    } finally {
      this.state = "stopped";
      this.resyncTimer?.timer.cancel();
      await Promise.all([...this.listeners].map((listener) => listener.stop()));
      this.logger.debug("stopped informer");
    }
  }

  /** Lists and watches the whole collection, or the share of namespaces its plan gives. */
  private async reflect(signal: AbortSignal): Promise<void> {
    const plan = await this.shardPlan?.(signal);
    if (signal.aborted) return;
    if (plan) {
      this.sharded = new ShardedReflector(this.listerWatcher, this.queue, plan, this.makeReflector, this.informerName, this.logger);
      const sharded = this.sharded;
      this.indexer.followNamespaceVersions((namespace) => sharded.resourceVersionIn(namespace));
      this.reflector = this.sharded;
    } else this.reflector = this.makeReflector(this.listerWatcher, this.queue, this.informerName);
    await this.reflector.run(signal);
  }

  private async processLoop(signal: AbortSignal): Promise<void> {
    // Popping a ready entry never waits on a timer: a full queue would hold up the event loop without the slices.
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    const handle = (delta: Delta<T>, isInInitialList: boolean) => this.handleDelta(delta, isInInitialList);
    while (await this.queue.pop(handle, signal)) {
      // Here, not in replaceAll: nothing of the list is reachable from this frame any more.
      if (this.appliedRelistSize > 0) this.garbage.relistStepDone(this.appliedRelistSize);
      this.appliedRelistSize = 0;
      if (slicer.due()) await slicer.yield();
    }
  }

  /** Brings the cache up to date with one change, then tells the handlers. */
  private handleDelta(delta: Delta<T>, isInInitialList: boolean): void | Promise<void> {
    if (this.sharded && "segment" in delta && delta.segment !== undefined) return this.handleSegmentDelta(this.sharded, delta.segment, delta, isInInitialList);
    switch (delta.type) {
      case "ReplacedAll":
        return this.replaceAll(delta.objects, delta.resourceVersion, isInInitialList, undefined, delta.keys);
      case "SyncAll":
        return this.resyncAll();
      case "Bookmark":
        this.indexer.bookmark(delta.resourceVersion);
        return;
      case "ShareNarrowed":
        return this.dropOutsideShare();
      default:
        return this.applyChange(delta, isInInitialList);
    }
  }

  /** An object added, changed or deleted, into the cache and to the handlers. */
  private applyChange(delta: Extract<Delta<T>, { type: "Added" | "Updated" | "Deleted" }>, isInInitialList: boolean): void {
    if (delta.type === "Deleted") {
      this.indexer.delete(delta.object);
      this.distribute({ type: "delete", obj: delta.object }, false);
      return;
    }
    try {
      const obj = delta.object;
      const key = metaNamespaceKeyFunc(obj);
      const old = this.indexer.getByKey(key);
      this.indexer.putByKey(key, obj);
      this.distributeChange(old, obj, isInInitialList);
    } catch (err) {
      this.logger.error({ err, key: keyForLogs(delta.object), delta: delta.type }, "failed to apply a change to the cache");
    }
  }

  /**
   * A change from one segment of a sharded informer: applied only within what that segment still
   * covers (so a watch not yet narrowed, or a segment that ended, changes nothing elsewhere), and
   * a list replaces only that part of the cache. The cache's resourceVersion is then the oldest
   * of the segments' (ShardedReflector.storeResourceVersion).
   */
  private async handleSegmentDelta(sharded: ShardedReflector<T>, segment: SegmentId, delta: Delta<T>, isInInitialList: boolean): Promise<void> {
    if (!sharded.has(segment)) return;
    const covered = (obj: T) => sharded.covers(segment, obj.metadata?.namespace ?? "");
    switch (delta.type) {
      case "ReplacedAll": {
        // A segment's first list is its namespaces' initial one, whenever it comes.
        const initial = isInInitialList || sharded.isListing(segment);
        await this.replaceAll(delta.objects.filter(covered), delta.resourceVersion, initial, covered);
        sharded.applied(segment, delta.resourceVersion, true);
        break;
      }
      case "Bookmark":
        sharded.applied(segment, delta.resourceVersion, false);
        break;
      case "Added":
      case "Updated":
      case "Deleted": {
        const obj = finalStateOf(delta.object);
        if (!covered(obj)) return;
        this.applyChange(delta, isInInitialList);
        sharded.applied(segment, obj.metadata?.resourceVersion ?? "", false);
        break;
      }
      default:
        return;
    }
    const resourceVersion = sharded.storeResourceVersion();
    if (resourceVersion) this.indexer.bookmark(resourceVersion);
  }

  /** Takes what the share no longer holds out of the cache, telling the handlers as of deletions (tombstones: nothing was deleted on the server). */
  private async dropOutsideShare(): Promise<void> {
    if (!this.sharded) return;
    const held = this.sharded.heldNamespaces();
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    for (const key of this.indexer.listKeys()) {
      if (slicer.due()) await slicer.yield();
      const obj = this.indexer.getByKey(key);
      if (obj === undefined || held(obj.metadata?.namespace ?? "")) continue;
      const tombstone = new DroppedFromShare(key, obj);
      this.indexer.delete(tombstone);
      this.distribute({ type: "delete", obj: tombstone }, false);
    }
  }

  /**
   * Applies a (re)list as client-go does with AtomicFIFO: the cache takes the whole list in one
   * step, and only then do the handlers hear of it — first a tombstone for every cached object
   * the list no longer has, then an add or update for each listed object, in list order. So no
   * handler, and no reader of the cache, ever sees half of a relist.
   */
  private async replaceAll(objects: readonly T[], resourceVersion: string, isInInitialList: boolean, within?: (obj: T) => boolean, keys?: readonly string[]): Promise<void> {
    const relist = this.indexer.size > 0;
    const list = await this.compareWithCache(objects, within, keys);
    const leftOut = new Set<string>();
    const failed = (key: string, err: unknown) => {
      leftOut.add(key);
      this.logger.error({ err, key }, "failed to apply a listed object to the cache");
    };
    if (list.changes <= inPlaceChangeLimit) this.applyInPlace(list, resourceVersion, failed);
    else {
      const { kept } = list;
      const allKeys = kept.keys.length > 0 ? [...kept.keys, ...list.keys] : list.keys;
      const allObjects = kept.objects.length > 0 ? [...kept.objects, ...list.objects] : list.objects;
      await this.indexer.replaceByKey(allKeys, allObjects, resourceVersion, (key, _obj, err) => failed(key, err));
    }
    // Without a yield: a handler added meanwhile would get adds for the new cache and then this list's notifications again.
    for (const tombstone of list.tombstones) this.distribute({ type: "delete", obj: tombstone }, false);
    for (let i = 0; i < list.objects.length; i++) {
      if (!leftOut.has(list.keys[i]!)) this.distributeChange(list.previous[i], list.objects[i]!, isInInitialList);
    }
    if (relist) this.appliedRelistSize = list.objects.length;
  }

  /**
   * Each listed object under its key with what the cache holds there now, the cached objects the
   * list lacks, and how many differ. `within`: the list is of that part of the collection only (a
   * segment's ranges), so cached objects outside it are kept, not tombstoned. `keys`: the objects', when known.
   */
  private async compareWithCache(objects: readonly T[], within?: (obj: T) => boolean, keys?: readonly string[]): Promise<ListedAgainstCache<T>> {
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    // Keys given come one for each object, each once (a streaming list's, gathered in a map): the list needs no copy.
    const keyed: T[] = [];
    const keyedKeys: string[] = [];
    const previous: (T | undefined)[] = [];
    // A first list has no cache to compare with: no lookups, and nothing it could leave out.
    const cacheEmpty = this.indexer.size === 0;
    let changes = 0;
    let matched = 0;
    for (let i = 0; i < objects.length; i++) {
      const obj = objects[i]!;
      if (slicer.due()) await slicer.yield();
      let key: string;
      if (keys) key = keys[i]!;
      else {
        try {
          key = metaNamespaceKeyFunc(obj);
        } catch (err) {
          this.logger.error({ err }, "listed object without a name left out of the cache");
          continue;
        }
        keyed.push(obj);
        keyedKeys.push(key);
      }
      const cached = cacheEmpty ? undefined : this.indexer.getByKey(key);
      if (cached !== obj) changes++;
      if (cached !== undefined) matched++;
      previous.push(cached);
    }
    const tombstones: DeletedFinalStateUnknown<T>[] = [];
    const kept = { keys: [] as string[], objects: [] as T[] };
    // Every cached object listed again under keys given once each: none is missing, and no set of 100,000 listed keys is needed to say so.
    const noneMissing = cacheEmpty || (keys !== undefined && matched === this.indexer.size);
    if (!noneMissing) {
      const listed = new Set(keys ?? keyedKeys);
      for (const key of this.indexer.listKeys()) {
        if (listed.has(key)) continue;
        const gone = this.indexer.getByKey(key);
        if (gone === undefined) continue;
        if (within && !within(gone)) {
          kept.keys.push(key);
          kept.objects.push(gone);
        } else tombstones.push(new DeletedFinalStateUnknown(key, gone));
      }
    }
    return { objects: keys ? objects : keyed, keys: keys ?? keyedKeys, previous, tombstones, kept, changes: changes + tombstones.length };
  }

  /**
   * A list that differs from the cache in a few objects only (a relist keeps the cached copy of
   * each unchanged one) changes just those, synchronously, instead of building a second cache
   * with its indices beside the first. An object an index function throws for is left out.
   */
  private applyInPlace(list: ListedAgainstCache<T>, resourceVersion: string, failed: (key: string, err: unknown) => void): void {
    for (const tombstone of list.tombstones) this.indexer.delete(tombstone);
    list.objects.forEach((obj, i) => {
      const key = list.keys[i]!;
      const cached = list.previous[i];
      if (cached === obj) return;
      try {
        this.indexer.putByKey(key, obj);
      } catch (err) {
        if (cached !== undefined) this.indexer.delete(new DeletedFinalStateUnknown(key, cached));
        failed(key, err);
      }
    });
    this.indexer.bookmark(resourceVersion);
  }

  /** Hands every cached object, as it is now, to the handlers whose resync is due. */
  private async resyncAll(): Promise<void> {
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    for (const obj of this.indexer.list()) {
      this.distribute({ type: "update", oldObj: obj, newObj: obj }, true);
      if (slicer.due()) await slicer.yield();
    }
  }

  /** An add when the key was not cached, else an update, which only handlers due a resync hear when nothing changed. */
  private distributeChange(old: T | undefined, obj: T, isInInitialList: boolean): void {
    if (old === undefined) return this.distribute({ type: "add", obj, isInInitialList }, false);
    const resync = isResync(old, obj);
    // A relist of 100,000 unchanged objects usually tells nobody: no notification made, and no listener set walked, for each.
    if (resync && this.resyncingListeners.size === 0) return;
    this.distribute({ type: "update", oldObj: old, newObj: obj }, resync);
  }

  /** Resync-like updates (same resourceVersion) go only to handlers whose resync is due. */
  private distribute(notification: Notification<T>, resync: boolean): void {
    for (const listener of resync ? this.resyncingListeners : this.listeners) listener.add(notification);
  }

  /** The resync check runs at the shortest handler resync period; a timer that would come too late is moved up. */
  private scheduleResync(): void {
    const periodMs = Math.min(...[...this.listeners].map((l) => l.resyncPeriodMs).filter((ms) => ms > 0));
    if (!Number.isFinite(periodMs) || (this.resyncTimer && this.resyncTimer.periodMs <= periodMs)) return;
    this.resyncTimer?.timer.cancel();
    const timer = this.clock.setTimer(periodMs, () => {
      this.resyncTimer = undefined;
      this.resyncCheck();
      if (this.state === "running") this.scheduleResync();
    });
    this.resyncTimer = { timer, periodMs };
  }

  private resyncCheck(): void {
    const now = this.clock.monotonic();
    this.resyncingListeners = new Set([...this.listeners].filter((listener) => listener.claimResync(now)));
    if (this.resyncingListeners.size > 0) this.queue.resync();
  }

  /** The cached object with the key and resourceVersion of `obj`, if the cache has that very version. */
  private cachedVersionOf(obj: T): T | undefined {
    const resourceVersion = obj.metadata?.resourceVersion;
    const name = obj.metadata?.name;
    // The first list finds nothing to share: not worth a key per object.
    if (!resourceVersion || !name || this.indexer.size === 0) return undefined;
    return this.heldVersion(obj.metadata?.namespace ?? "", name, resourceVersion);
  }

  private handlerFailed(err: unknown, notification: Notification<T>): void {
    this.handlerErrors++;
    const key = keyForLogs(notification.type === "update" ? notification.newObj : notification.obj);
    this.logger.error({ err, key, event: notification.type }, "event handler failed");
    this.onHandlerError?.(err, { informer: this.name, key, event: notification.type });
  }
}

function keyForLogs(obj: KubeObject | DeletedFinalStateUnknown): string {
  try {
    return deletionHandlingKeyFunc(obj);
  } catch {
    return "<no name>";
  }
}
