// client-go's RealFIFO as informers use it since 1.36 (InOrderInformers, AtomicFIFO): the queue
// between the reflector (producer) and the informer's processing loop (consumer). Every change
// is queued on its own, in the order it happened, nothing merged; a relist or a resync is one
// entry, so the consumer applies it to the cache as one step. The cache's resourceVersion then
// only ever moves through states the API server had.
import { type Clock, realClock } from "../clock/clock.ts";
import { Fifo } from "../collections/fifo.ts";
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Delta, DeletedFinalStateUnknown, type SegmentId } from "./deltas.ts";
import { type InformerMetrics, noInformerMetrics } from "./metrics.ts";
import type { ReflectorStore } from "./store.ts";

/** Handles one change. `isInInitialList`: it belongs to the first list (or came before it). */
export type PopProcessFunc<T extends KubeObject> = (delta: Delta<T>, isInInitialList: boolean) => void | Promise<void>;

export interface RealFifoOptions<T extends KubeObject> {
  /** Applied to every incoming object except tombstones. */
  transform?: (obj: T) => T;
  /** Told the queue's length and how long each entry took to process. */
  metrics?: Pick<InformerMetrics, "queuedItems" | "processingLatency">;
  /** Times the processing. */
  clock?: Clock;
}

export class RealFifo<T extends KubeObject = KubeObject> implements ReflectorStore<T> {
  private readonly items = new Fifo<Delta<T>>();
  private readonly transform: ((obj: T) => T) | undefined;
  private readonly metrics: Pick<InformerMetrics, "queuedItems" | "processingLatency">;
  private readonly clock: Clock;
  /** A first replace was queued. */
  private populated = false;
  /** Entries queued up to and including the first replace, not yet fully processed. */
  private initialPopulationCount = 0;
  private readonly waiters = new Set<() => void>();

  constructor(options: RealFifoOptions<T> = {}) {
    this.transform = options.transform;
    this.metrics = options.metrics ?? noInformerMetrics;
    this.clock = options.clock ?? realClock;
  }

  /** Entries waiting to be processed. */
  get length(): number {
    return this.items.length;
  }

  add(obj: T): void {
    this.push({ type: "Added", object: this.transformed(obj) });
  }

  update(obj: T): void {
    this.push({ type: "Updated", object: this.transformed(obj) });
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.push({ type: "Deleted", object: this.deletedForm(obj) });
  }

  /**
   * Queues a whole list as one entry. The objects are transformed in time slices first, so a
   * big list does not hold up timers; the reflector awaits this before its next event.
   */
  replace(list: readonly T[], resourceVersion: string, keys?: readonly string[]): Promise<void> {
    return this.replaceFrom(undefined, list, resourceVersion, keys);
  }

  bookmark(resourceVersion: string): void {
    this.push({ type: "Bookmark", resourceVersion });
  }

  /** The same queue as the store of one segment's reflector: its entries carry the segment. */
  segmentStore(segment: SegmentId): ReflectorStore<T> {
    return {
      add: (obj) => this.push({ type: "Added", object: this.transformed(obj), segment }),
      update: (obj) => this.push({ type: "Updated", object: this.transformed(obj), segment }),
      delete: (obj) => this.push({ type: "Deleted", object: this.deletedForm(obj), segment }),
      replace: (list, resourceVersion) => this.replaceFrom(segment, list, resourceVersion),
      bookmark: (resourceVersion) => this.push({ type: "Bookmark", resourceVersion, segment }),
    };
  }

  /** Queues the removal of what the share no longer holds, in order with the changes queued before. */
  shareNarrowed(): void {
    this.push({ type: "ShareNarrowed" });
  }

  /** Queues a resync of everything cached at the time it is processed. */
  resync(): void {
    this.push({ type: "SyncAll" });
  }

  /**
   * Waits for an entry, removes it and hands it to `process`, awaiting it. Resolves false,
   * without processing, once `signal` aborts. Meant for a single consumer.
   */
  async pop(process: PopProcessFunc<T>, signal?: AbortSignal): Promise<boolean> {
    while (this.items.length === 0) {
      if (signal?.aborted) return false;
      await this.nextArrival(signal);
    }
    if (signal?.aborted) return false;
    const isInInitialList = !this.hasSynced();
    const delta = this.items.shift() as Delta<T>;
    this.metrics.queuedItems.set(this.items.length);
    const startedAt = this.clock.monotonic();
    try {
      await process(delta, isInInitialList);
    } finally {
      this.metrics.processingLatency.observe((this.clock.monotonic() - startedAt) / 1000);
      // Counted down only after processing, so hasSynced never runs ahead of the consumer.
      if (this.initialPopulationCount > 0) this.initialPopulationCount--;
    }
    return true;
  }

  /** True once the first replace was queued and it, and everything queued before it, was processed. */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  private async replaceFrom(segment: SegmentId | undefined, list: readonly T[], resourceVersion: string, keys?: readonly string[]): Promise<void> {
    let objects = list;
    // Keys of the objects before the transform, which may change them: only kept without one.
    const keyed = this.transform || keys === undefined ? {} : { keys };
    if (this.transform) {
      const slicer = new TimeSlicer({ callsPerCheck: 32 });
      const transformed: T[] = [];
      for (const obj of list) {
        transformed.push(this.transform(obj));
        if (slicer.due()) await slicer.yield();
      }
      objects = transformed;
    }
    this.push(segment === undefined ? { type: "ReplacedAll", objects, resourceVersion, ...keyed } : { type: "ReplacedAll", objects, resourceVersion, segment, ...keyed });
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = this.items.length;
    }
  }

  private deletedForm(obj: T | DeletedFinalStateUnknown<T>): T | DeletedFinalStateUnknown<T> {
    return obj instanceof DeletedFinalStateUnknown ? obj : this.transformed(obj);
  }

  private transformed(obj: T): T {
    return this.transform ? this.transform(obj) : obj;
  }

  private push(delta: Delta<T>): void {
    this.items.push(delta);
    this.metrics.queuedItems.set(this.items.length);
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) waiter();
  }

  private nextArrival(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
