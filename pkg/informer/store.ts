// The store contracts of the informer pipeline: the reflector writes into a ReflectorStore
// (the delta queue, or an indexer directly); readers get a Store or an IndexedStore, which have
// no writes, so that only the informer changes its cache (kube-rs keeps its Writer apart from
// its Store likewise).
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
  /**
   * Makes the store hold exactly `items`, as of `resourceVersion`; a big list may be taken in slices (a promise).
   * `keys`: each item's cache key, in the order of `items`, each key once, when the caller has them already (a
   * streaming list keys its objects as they arrive); the store need not key them again.
   */
  replace(items: readonly T[], resourceVersion: string, keys?: readonly string[]): void | Promise<void>;
  /** The collection reached `resourceVersion` (a watch bookmark) with no change to the objects. */
  bookmark(resourceVersion: string): void;
}

/** A keyed object cache, read-only. Objects are shared: never mutate one you got from it. */
export interface Store<T extends KubeObject> {
  /** The cached object with the same key as `obj`. */
  get(obj: T): T | undefined;
  /** The cached object under "namespace/name" (or "name"). */
  getByKey(key: string): T | undefined;
  /** Every cached object, in no particular order. */
  list(): T[];
  /** Every cached key. */
  listKeys(): string[];
  /**
   * The resourceVersion of the last change applied to the store; "" before the first. With `namespace`: the
   * version up to which that namespace's objects are known, which in a sharded cache (several lists and watches,
   * each over some namespaces) is that of the one holding the namespace.
   */
  lastStoreSyncResourceVersion(namespace?: string): string;
}

/** The values an object is filed under in one index, e.g. its owners' UIDs; none leaves it out of the index. Must not throw. */
export type IndexFunc<T> = (obj: T) => string[];
/** Index functions by index name. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** A Store with secondary indexes (client-go's Indexer without its writes), read-only. */
export interface IndexedStore<T extends KubeObject> extends Store<T> {
  /** Objects cached. */
  readonly size: number;
  /** The objects filed under `value` in the named index. Throws for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  /** The objects sharing at least one value of the named index with `obj`. */
  index(indexName: string, obj: T): T[];
  /** The keys filed under `value` in the named index. Throws for an unknown index. */
  indexKeys(indexName: string, value: string): string[];
  /** Every value that currently has objects in the named index. */
  listIndexFuncValues(indexName: string): string[];
  /** The index functions, by index name. */
  getIndexers(): Indexers<T>;
}
