// client-go's SharedIndexInformer: the pipeline reflector → delta queue → indexer → handlers,
// shared by every handler interested in one collection.
//
//   Reflector ──add/update/delete/replace──▶ DeltaFIFO ──pop──▶ handleDeltas ──▶ Indexer (the cache)
//                                              ▲ resync                      └──▶ ProcessorListener per handler
import { type Clock, type Timer, realClock } from "../clock/clock.ts";
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import { DeltaFIFO } from "./delta-fifo.ts";
import type { DeletedFinalStateUnknown, Delta } from "./deltas.ts";
import { type ResourceEventHandler, isResync } from "./event-handler.ts";
import { namespaceIndex, namespaceIndexName } from "./index-funcs.ts";
import { Indexer, type Indexers } from "./indexer.ts";
import { deletionHandlingKeyFunc } from "./keys.ts";
import { type Notification, ProcessorListener } from "./processor-listener.ts";
import { Reflector, type ReflectorCounters, type ReflectorOptions } from "./reflector.ts";
import type { Store } from "./store.ts";
import { dropManagedFields } from "./transform.ts";

/** A handler's resync period is never shorter than this. */
export const minimumResyncPeriodMs = 1000;

export interface HandlerErrorContext {
  /** The informer's name. */
  informer: string;
  /** Cache key of the object the handler was given. */
  key: string;
  event: Notification<KubeObject>["type"];
}

export interface SharedIndexInformerOptions<T extends KubeObject> {
  /** Names the informer in logs, e.g. "pods.v1". */
  name?: string;
  /** Resync period of handlers added without one; 0 (default): no resync. */
  defaultResyncMs?: number;
  /** Default: the namespace index. */
  indexers?: Indexers<T>;
  /** Applied to every object before it is queued and cached. Default: drop managedFields. */
  transform?: (obj: T) => T;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  /** Tuning passed to the reflector. */
  reflector?: Pick<ReflectorOptions, "pageSize" | "watchIdleTimeoutMs" | "useWatchList" | "watchListTimeoutMs" | "backoff">;
  /** Told about every handler that threw or rejected, e.g. to count it in metrics. */
  onHandlerError?: (err: unknown, context: HandlerErrorContext) => void;
}

export interface EventHandlerOptions {
  /** Resync period for this handler (at least 1 s; 0: none). Default: the informer's. */
  resyncPeriodMs?: number;
}

export interface EventHandlerRegistration {
  /** True once the informer synced and this handler has handled every object of the initial list. */
  hasSynced(): boolean;
  /** Stops delivering to the handler; resolves once a call in progress has returned. */
  remove(): Promise<void>;
}

export interface InformerCounters extends ReflectorCounters {
  /** Handler calls that threw or rejected. */
  handlerErrors: number;
}

export class SharedIndexInformer<T extends KubeObject = KubeObject> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly defaultResyncMs: number;
  private readonly onHandlerError: SharedIndexInformerOptions<T>["onHandlerError"];
  private readonly indexer: Indexer<T>;
  private readonly queue: DeltaFIFO<T>;
  private readonly reflector: Reflector<T>;
  private readonly listeners = new Set<ProcessorListener<T>>();
  /** Listeners whose resync was due at the last resync check: unchanged-object updates go only to them. */
  private resyncingListeners = new Set<ProcessorListener<T>>();
  private resyncTimer: { timer: Timer; periodMs: number } | undefined;
  private watchErrorHandler: ((err: unknown) => void) | undefined;
  private handlerErrors = 0;
  private state: "new" | "running" | "stopped" = "new";

  constructor(listerWatcher: ListerWatcher<T>, options: SharedIndexInformerOptions<T> = {}) {
    this.name = options.name ?? "informer";
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger).child({ informer: this.name });
    this.defaultResyncMs = options.defaultResyncMs ?? 0;
    this.onHandlerError = options.onHandlerError;
    this.indexer = new Indexer<T>(options.indexers ?? { [namespaceIndexName]: namespaceIndex });
    this.queue = new DeltaFIFO<T>({ knownObjects: this.indexer, transform: options.transform ?? dropManagedFields });
    this.reflector = new Reflector<T>(listerWatcher, this.queue, {
      ...options.reflector,
      name: this.name,
      clock: this.clock,
      logger: options.logger ?? silentLogger,
      random: options.random,
      onError: (err) => this.watchErrorHandler?.(err),
    });
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

  /** True once the first list is in the cache and every handler has handled its part of it. */
  hasSynced(): boolean {
    return this.queue.hasSynced() && [...this.listeners].every((listener) => listener.initialEventsHandled());
  }

  /** Why the informer has not (re)filled its cache yet: the last list or watch failure since it last did. */
  get lastListError(): unknown {
    return this.reflector.lastError;
  }

  get lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion;
  }

  get counters(): InformerCounters {
    return { ...this.reflector.counters, handlerErrors: this.handlerErrors };
  }

  /** Handlers registered and not removed. */
  get handlerCount(): number {
    return this.listeners.size;
  }

  get isStarted(): boolean {
    return this.state !== "new";
  }

  /** The cache with its indices. Objects in it are shared: never mutate them. */
  getIndexer(): Indexer<T> {
    return this.indexer;
  }

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
      await Promise.all([this.reflector.run(signal), this.processLoop(signal)]);
    } finally {
      this.state = "stopped";
      this.resyncTimer?.timer.cancel();
      await Promise.all([...this.listeners].map((listener) => listener.stop()));
      this.logger.debug("stopped informer");
    }
  }

  private async processLoop(signal: AbortSignal): Promise<void> {
    // Popping a ready key never waits on a timer: a full queue would hold up the event loop without the slices.
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    const handle = (deltas: Delta<T>[], isInInitialList: boolean, key: string) => this.handleDeltas(deltas, isInInitialList, key);
    while (await this.queue.pop(handle, signal)) {
      // The keys already queued (a whole list, after a replace) are taken without an await each.
      do {
        if (slicer.due()) await slicer.yield();
      } while (!signal.aborted && this.queue.popReady(handle));
    }
  }

  /** Brings the cache up to date with one key's deltas and tells the handlers, in order. */
  private handleDeltas(deltas: Delta<T>[], isInInitialList: boolean, key: string): void {
    for (const delta of deltas) {
      try {
        if (delta.type === "Deleted") {
          this.indexer.delete(delta.object);
          this.distribute({ type: "delete", obj: delta.object }, false);
          continue;
        }
        const obj = delta.object;
        const old = this.indexer.getByKey(key);
        this.indexer.putByKey(key, obj);
        if (old === undefined) {
          this.distribute({ type: "add", obj, isInInitialList }, false);
        } else {
          this.distribute({ type: "update", oldObj: old, newObj: obj }, isResync(old, obj));
        }
      } catch (err) {
        this.logger.error({ err, key: keyForLogs(delta.object), delta: delta.type }, "failed to apply a delta to the cache");
      }
    }
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
