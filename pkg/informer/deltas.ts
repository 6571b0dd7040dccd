// The vocabulary of the informer's queue: what happened to the collection, and the tombstone
// left when a relist finds an object gone without the watch having reported its deletion.
import type { KubeObject } from "../kube/objects.ts";

/** An object whose deletion was inferred, not observed: `obj` is its last known, possibly stale, state. */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  /** Made by the informer; a handler's unit test may make one to simulate a missed deletion. */
  constructor(
    /** The cache key the object was filed under. */
    readonly key: string,
    /** Its last known state. */
    readonly obj: T,
  ) {}
}

/**
 * An object that left a sharded cache because this process no longer caches its namespace (its
 * shard moved to another member): handed to onDelete like a tombstone, but nothing says the
 * object is gone, so a handler must not record it as deleted.
 */
export class DroppedFromShare<T extends KubeObject = KubeObject> extends DeletedFinalStateUnknown<T> {}

/**
 * Which reflector of a sharded informer produced a change (see sharded-reflector.ts); absent for
 * the one reflector of an informer that is not sharded.
 */
export type SegmentId = number;

/**
 * One change, queued in the order the reflector saw it (client-go's Delta with InOrderInformers
 * and AtomicFIFO): a watch event, a whole (re)list, a resync of everything cached, or a bookmark.
 */
export type Delta<T extends KubeObject = KubeObject> =
  | { type: "Added" | "Updated"; object: T; segment?: SegmentId }
  | { type: "Deleted"; object: T | DeletedFinalStateUnknown<T>; segment?: SegmentId }
  /**
   * The collection is exactly `objects` as of `resourceVersion`: applied to the cache as one step.
   * From a segment: the part of the collection that segment covers, and only that part is replaced.
   */
  | { type: "ReplacedAll"; objects: readonly T[]; resourceVersion: string; segment?: SegmentId; keys?: readonly string[] }
  /** Every cached object is handed again to the handlers whose resync is due. */
  | { type: "SyncAll" }
  /** The collection reached `resourceVersion` with no change to the objects watched. */
  | { type: "Bookmark"; resourceVersion: string; segment?: SegmentId }
  /** The share of namespaces lost ranges: cached objects outside what the segments still cover leave the cache. */
  | { type: "ShareNarrowed" };

/** The object an onDelete handler got, unwrapped from its tombstone if it has one. */
export function finalStateOf<T extends KubeObject>(deleted: T | DeletedFinalStateUnknown<T>): T {
  return deleted instanceof DeletedFinalStateUnknown ? deleted.obj : deleted;
}
