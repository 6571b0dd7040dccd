// client-go's basic workqueue (util/workqueue/queue.go). An item is "dirty" from add until get, and "processing" from
// get until done. Adding a dirty item is a no-op, and an item added while processing waits until done, so duplicate
// adds collapse and a key is never handed to two workers at once. Unlike client-go's, keys carry a priority (see
// priority.ts): an add at a higher priority moves a queued key up, one at a lower priority leaves it where it is.
import { type Clock, realClock } from "../clock/clock.ts";
import { Fifo } from "../collections/fifo.ts";
import {
  type QueueMetrics,
  type WorkqueueMetricsProvider,
  createQueueMetrics,
  noopWorkqueueMetricsProvider,
} from "./metrics.ts";
import { type AddOptions, checkedPriority, higherOf, type Priority } from "./priority.ts";
import { PriorityFifo } from "./priority-fifo.ts";

/** How a work queue is named, timed and measured. */
export interface WorkQueueOptions {
  /** Metrics are labelled with this name; an unnamed queue emits none. */
  name?: string;
  /** Time source for delays and metrics; default the real clock (tests pass a fake). */
  clock?: Clock;
  /** Where the workqueue_* metrics go; default nowhere. */
  metricsProvider?: WorkqueueMetricsProvider;
  /** While low-priority keys wait, normal ones handed out in a row at most. Default: defaultNormalPerLow (9). */
  normalPerLow?: number;
}

/** What `get` hands a worker: an item, or word that the queue has shut down and the worker should stop. */
export type GetResult<T> =
  | {
      /** The item to process; call `done(item)` afterwards. */
      item: T;
      /** False: keep working. */
      shutdown: false;
    }
  | {
      /** No item. */
      item: undefined;
      /** True: the queue shut down and is drained. */
      shutdown: true;
    };

/**
 * client-go's work queue: an item added several times before a worker takes it is handed out once, and an
 * item is never handed to two workers at once (added again while processing, it waits until `done`).
 * Items carry a priority: "low" ones (resyncs, initial lists) wait behind "normal" ones, with a guaranteed share.
 *
 * @hideconstructor
 */
export class WorkQueue<T = string> {
  /** The name in the workqueue_* metrics' `name` label; "" for none. */
  readonly name: string;
  protected readonly clock: Clock;
  protected readonly metricsProvider: WorkqueueMetricsProvider;
  /** Dirty items that are not processing, in the order they will be handed out. */
  private readonly queue: PriorityFifo<T>;
  /** Items added and not yet handed out, with the priority they are (or will be, once done) queued at. */
  private readonly dirty = new Map<T, Priority>();
  /** Items handed out and not yet done, with the priority they were handed out at. */
  private readonly processing = new Map<T, Priority>();
  /** Workers blocked in `get`; only non-empty while `queue` is empty. */
  private readonly getters = new Fifo<(result: GetResult<T>) => void>();
  private readonly drainWaiters: Array<() => void> = [];
  private readonly metrics: QueueMetrics<T>;
  private isShuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? "";
    this.clock = options.clock ?? realClock;
    this.metricsProvider = options.metricsProvider ?? noopWorkqueueMetricsProvider;
    this.metrics = createQueueMetrics<T>(this.metricsProvider, this.name, this.clock);
    this.queue = new PriorityFifo<T>(options.normalPerLow);
  }

  /**
   * Marks `item` as needing processing, at `options.priority` (default "normal"). An item already waiting keeps
   * the higher of its two priorities. Ignored once the queue is shutting down.
   */
  add(item: T, options: AddOptions = {}): void {
    if (this.isShuttingDown) return;
    const priority = checkedPriority(options.priority ?? "normal");
    const pending = this.dirty.get(item);
    if (pending !== undefined) {
      this.dirty.set(item, higherOf(pending, priority));
      if (!this.processing.has(item)) this.queue.put(item, priority);
      return;
    }
    this.metrics.add(item);
    this.dirty.set(item, priority);
    if (!this.processing.has(item)) this.enqueue(item, priority);
  }

  /** Number of items waiting to be handed out (not counting those being processed). */
  len(): number {
    return this.queue.size;
  }

  /**
   * Resolves with the next item, waiting while the queue is empty. Call `done(item)` when finished with it.
   * `shutdown: true` means the queue is shut down and drained: the worker should stop.
   */
  get(): Promise<GetResult<T>> {
    if (this.queue.size > 0) return Promise.resolve(this.handOut(this.queue.shift() as T));
    if (this.isShuttingDown) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of `item`; if it was added again meanwhile, it goes back into the queue. */
  done(item: T): void {
    // A second done for the same get must not queue the item twice.
    if (!this.processing.has(item)) return;
    this.metrics.done(item);
    this.processing.delete(item);
    const pending = this.dirty.get(item);
    if (pending !== undefined) this.enqueue(item, pending);
    else if (this.processing.size === 0) this.releaseDrainWaiters();
  }

  /** Drops later adds; items already queued still drain through `get`, after which `get` reports shutdown. */
  shutDown(): void {
    this.beginShutdown();
    // Also ends a pending shutDownWithDrain without waiting, as client-go does.
    this.releaseDrainWaiters();
  }

  /** Like `shutDown`, then waits until every item handed out has been `done`. */
  shutDownWithDrain(): Promise<void> {
    this.beginShutdown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** True once `shutDown` or `shutDownWithDrain` was called. */
  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  /** The priority `item` was handed out at while it is being processed; undefined otherwise. */
  protected priorityInProcess(item: T): Priority | undefined {
    return this.processing.get(item);
  }

  private beginShutdown(): void {
    this.isShuttingDown = true;
    this.metrics.stop();
    // Getters only wait on an empty queue, so they have nothing left to drain.
    for (let resolve = this.getters.shift(); resolve; resolve = this.getters.shift()) {
      resolve({ item: undefined, shutdown: true });
    }
  }

  private enqueue(item: T, priority: Priority): void {
    const getter = this.getters.shift();
    if (getter) getter(this.handOut(item));
    else this.queue.put(item, priority);
  }

  private handOut(item: T): GetResult<T> {
    this.metrics.get(item);
    this.processing.set(item, this.dirty.get(item) ?? "normal");
    this.dirty.delete(item);
    return { item, shutdown: false };
  }

  private releaseDrainWaiters(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
