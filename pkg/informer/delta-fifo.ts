// client-go's DeltaFIFO: the queue between the reflector (producer) and the informer's
// processing loop (consumer). Each key is queued once, with every change that happened to it
// since it was last popped, in order; the consumer gets the whole list for the key at once.
import { Fifo } from "../collections/fifo.ts";
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject } from "../kube/objects.ts";
import { type Delta, type DeltaType, DeletedFinalStateUnknown } from "./deltas.ts";
import { deletionHandlingKeyFunc } from "./keys.ts";
import type { ReflectorStore } from "./store.ts";

/** The store the consumer keeps up to date (the informer's indexer): used to detect deletions and for resync. */
export interface KnownObjects<T> {
  listKeys(): string[];
  getByKey(key: string): T | undefined;
}

/** Handles one key's deltas, oldest first. `isInInitialList`: the key came from the first list. */
export type PopProcessFunc<T extends KubeObject> = (deltas: Delta<T>[], isInInitialList: boolean, key: string) => void | Promise<void>;

export interface DeltaFIFOOptions<T extends KubeObject> {
  knownObjects?: KnownObjects<T>;
  /** Applied to every incoming object except tombstones and resyncs (those are already transformed). */
  transform?: (obj: T) => T;
}

export class DeltaFIFO<T extends KubeObject = KubeObject> implements ReflectorStore<T> {
  /** Pending deltas by key. */
  private readonly items = new Map<string, Delta<T>[]>();
  /** Keys in `items`, in arrival order. Kept apart because reading a Map's first entry after many deletes is slow. */
  private readonly queue = new Fifo<string>();
  private readonly knownObjects: KnownObjects<T> | undefined;
  private readonly transform: ((obj: T) => T) | undefined;
  /** A first replace happened. */
  private populated = false;
  /** Keys of the first replace not yet fully processed. */
  private initialPopulationCount = 0;
  private readonly waiters = new Set<() => void>();
  /** A replace in progress: pops wait for it, as they would for client-go's lock. */
  private replacing: Promise<void> | undefined;

  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.knownObjects = options.knownObjects;
    this.transform = options.transform;
  }

  add(obj: T): void {
    this.queueAction("Added", obj);
  }

  update(obj: T): void {
    this.queueAction("Updated", obj);
  }

  /** Queues a deletion, unless the object is neither cached nor queued (a relist already removed it). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = deletionHandlingKeyFunc(obj);
    const known = this.knownObjects ? this.knownObjects.getByKey(key) !== undefined : false;
    if (!known && !this.items.has(key)) return;
    this.queueAction("Deleted", obj);
  }

  /**
   * Applies a full list: a Replaced delta for every listed object, and a Deleted delta with a
   * DeletedFinalStateUnknown tombstone for every queued or cached key the list no longer has.
   * A big list is taken in time slices, so timers run meanwhile; pops wait until it is done.
   */
  replace(list: readonly T[], _resourceVersion: string): Promise<void> {
    const replacing = this.replaceInSlices(list).finally(() => {
      this.replacing = undefined;
      this.wake();
    });
    this.replacing = replacing;
    return replacing;
  }

  private async replaceInSlices(list: readonly T[]): Promise<void> {
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    const listed = new Set<string>();
    for (const obj of list) {
      // One key string per object, all the way to the cache: each new one costs a hash.
      const key = deletionHandlingKeyFunc(obj);
      listed.add(key);
      this.queueAction("Replaced", obj, key);
      if (slicer.due()) await slicer.yield();
    }
    let deletions = 0;
    for (const [key, deltas] of this.items) {
      if (slicer.due()) await slicer.yield();
      if (listed.has(key)) continue;
      const newest = deltas.at(-1)?.object;
      if (newest === undefined) continue;
      deletions++;
      this.queueAction("Deleted", new DeletedFinalStateUnknown(key, newest instanceof DeletedFinalStateUnknown ? newest.obj : newest), key);
    }
    for (const key of this.knownObjects?.listKeys() ?? []) {
      if (slicer.due()) await slicer.yield();
      if (listed.has(key) || this.items.has(key)) continue;
      const obj = this.knownObjects?.getByKey(key);
      if (obj === undefined) continue;
      deletions++;
      this.queueAction("Deleted", new DeletedFinalStateUnknown(key, obj), key);
    }
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = listed.size + deletions;
    }
  }

  /** Queues a Sync delta for every cached object that has no pending deltas. */
  resync(): void {
    if (!this.knownObjects) return;
    for (const key of this.knownObjects.listKeys()) {
      if (this.items.has(key)) continue;
      const obj = this.knownObjects.getByKey(key);
      if (obj !== undefined) this.queueAction("Sync", obj, key);
    }
  }

  /**
   * Waits for a key, removes it with its deltas and hands them to `process`, awaiting it.
   * Resolves false, without processing, once `signal` aborts. Meant for a single consumer.
   */
  async pop(process: PopProcessFunc<T>, signal?: AbortSignal): Promise<boolean> {
    while (!this.ready()) {
      if (signal?.aborted) return false;
      await this.nextArrival(signal);
    }
    if (signal?.aborted) return false;
    const { deltas, isInInitialList, key } = this.take();
    try {
      await process(deltas, isInInitialList, key);
    } finally {
      this.processed();
    }
    return true;
  }

  /**
   * Pops and processes one key if one is ready now, without waiting; false when none is. For a
   * consumer with a synchronous `process`: a big list then costs no promise per key.
   */
  popReady(process: (deltas: Delta<T>[], isInInitialList: boolean, key: string) => void): boolean {
    if (!this.ready()) return false;
    const { deltas, isInInitialList, key } = this.take();
    try {
      process(deltas, isInInitialList, key);
    } finally {
      this.processed();
    }
    return true;
  }

  private ready(): boolean {
    return this.items.size > 0 && this.replacing === undefined;
  }

  private take(): { deltas: Delta<T>[]; isInInitialList: boolean; key: string } {
    const key = this.queue.shift() as string;
    const deltas = this.items.get(key) as Delta<T>[];
    this.items.delete(key);
    return { deltas, isInInitialList: !this.hasSynced(), key };
  }

  /** Counted down only after processing, so hasSynced never runs ahead of the consumer. */
  private processed(): void {
    if (this.initialPopulationCount > 0) this.initialPopulationCount--;
  }

  /** True once the first replace happened and all the keys it queued were processed. */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  private queueAction(type: DeltaType, obj: T | DeletedFinalStateUnknown<T>, key = deletionHandlingKeyFunc(obj)): void {
    const object = this.transform && type !== "Sync" && !(obj instanceof DeletedFinalStateUnknown) ? this.transform(obj) : obj;
    let deltas = this.items.get(key);
    if (!deltas) {
      deltas = [];
      this.items.set(key, deltas);
      this.queue.push(key);
    }
    deltas.push({ type, object } as Delta<T>);
    dedupDeltas(deltas);
    this.wake();
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

  private wake(): void {
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * Collapses the last two deltas in place when both are deletions, keeping the one with more
 * information (an observed deletion beats an inferred tombstone). Nothing else is merged.
 */
function dedupDeltas<T extends KubeObject>(deltas: Delta<T>[]): void {
  const last = deltas.at(-1);
  const previous = deltas.at(-2);
  if (last?.type !== "Deleted" || previous?.type !== "Deleted") return;
  deltas.splice(-2, 2, previous.object instanceof DeletedFinalStateUnknown ? last : previous);
}
