// The store contracts of the informer pipeline: the reflector writes into a ReflectorStore
// (the delta queue, or an indexer directly); readers get a Store.
import type { KubeObject } from "../kube/objects.ts";
import type { DeletedFinalStateUnknown } from "./deltas.ts";

/** What the reflector feeds: watch events one by one, and whole lists. */
export interface ReflectorStore<T extends KubeObject> {
  /** An object appeared. */
  add(obj: T): void;
  /** An object changed. */
  update(obj: T): void;
  /** An object is gone; a tombstone when the deletion was inferred from a relist. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** Makes the store hold exactly `items`, as of `resourceVersion`; a big list may be taken in slices (a promise). */
  replace(items: readonly T[], resourceVersion: string): void | Promise<void>;
  /** The collection reached `resourceVersion` (a watch bookmark) with no change to the objects. */
  bookmark(resourceVersion: string): void;
}

/** A keyed object cache. Objects are shared: never mutate one you got from it. */
export interface Store<T extends KubeObject> extends ReflectorStore<T> {
  /** The cached object with the same key as `obj`. */
  get(obj: T): T | undefined;
  /** The cached object under "namespace/name" (or "name"). */
  getByKey(key: string): T | undefined;
  /** Every cached object, in no particular order. */
  list(): T[];
  /** Every cached key. */
  listKeys(): string[];
  /** The resourceVersion of the last change applied to the store; "" before the first. */
  lastStoreSyncResourceVersion(): string;
}
