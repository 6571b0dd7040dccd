// The informer's cache: objects by key, plus secondary indices (client-go's Indexer over a
// threadSafeMap). Indexers name the index functions; indices hold, per index, value → keys.
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject } from "../kube/objects.ts";
import { DeletedFinalStateUnknown } from "./deltas.ts";
import { type SettableGauge, resourceVersionForMetrics } from "./metrics.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import type { IndexedStore, IndexFunc, Indexers, ReflectorStore } from "./store.ts";

/** No index values: an object not cached before, or no longer. */
const noValues: readonly (readonly string[])[] = [];

/** Told about an object left out of a replace because an index function threw for it. */
export type IndexFailure<T> = (key: string, obj: T, err: unknown) => void;

/**
 * An informer's cache: the objects by key, plus secondary indexes. The informer alone writes it; readers
 * get it as an IndexedStore (`informer.getIndexer()`), and never mutate an object from it, since objects
 * are shared between readers.
 *
 * @hideconstructor
 */
export class Indexer<T extends KubeObject = KubeObject> implements IndexedStore<T>, ReflectorStore<T> {
  private items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** The same functions in the same order, walked for every object written. */
  private readonly indexFuncs: IndexFunc<T>[] = [];
  /** index name → indexed value → keys of the objects filed under it. */
  private indices = new Map<string, Map<string, Set<string>>>();
  /** The resourceVersion of the last change applied: a written object's, a list's, a bookmark's. */
  private storeResourceVersion = "";
  private namespaceVersion: ((namespace: string) => string | undefined) | undefined;

  constructor(
    indexers: Indexers<T> = {},
    /** Told the store's resourceVersion whenever it changes (informer_store_resource_version). */
    private readonly resourceVersionGauge?: SettableGauge,
  ) {
    this.addIndexers(indexers);
  }

  /** Adds or replaces the object under its key. */
  add(obj: T): void {
    this.putByKey(metaNamespaceKeyFunc(obj), obj);
  }

  /** Same as `add`. */
  update(obj: T): void {
    this.putByKey(metaNamespaceKeyFunc(obj), obj);
  }

  /** Adds or replaces the object under `key`, which must be its key: for callers that have it already. */
  putByKey(key: string, obj: T): void {
    // Index values are computed before anything changes, so an index function that throws leaves the store intact.
    const newValues = this.indexValues(obj);
    const old = this.items.get(key);
    reindexInto(this.indices, key, old === undefined ? noValues : this.indexValues(old), newValues);
    this.items.set(key, obj);
    this.advanceTo(obj);
  }

  /** Removes the object; a tombstone carries no resourceVersion of its own, so only an observed deletion advances the store's. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const tombstone = obj instanceof DeletedFinalStateUnknown;
    const key = tombstone ? obj.key : metaNamespaceKeyFunc(obj);
    const old = this.items.get(key);
    if (old !== undefined) {
      reindexInto(this.indices, key, this.indexValues(old), noValues);
      this.items.delete(key);
    }
    if (!tombstone) this.advanceTo(obj);
  }

  /** Swaps the whole content for `items`, which are the collection as of `resourceVersion` (see replaceByKey); `keys`: theirs, when known. */
  replace(items: readonly T[], resourceVersion: string, keys?: readonly string[]): Promise<void> {
    return this.replaceByKey(keys ?? items.map(metaNamespaceKeyFunc), items, resourceVersion);
  }

  /**
   * Swaps the whole content for `objects`, each under the key at the same place in `keys`, in
   * one step: the new content and its indices are built aside, in time slices so timers run
   * meanwhile, and then put in place at once, so a reader sees either the old content or the new,
   * never a mix. An object an index function throws for is left out and reported to `onIndexFailure`.
   * Two arrays, not an array of pairs: no pair to allocate, and keep, per object.
   */
  async replaceByKey(keys: readonly string[], objects: readonly T[], resourceVersion: string, onIndexFailure?: IndexFailure<T>): Promise<void> {
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    const items = new Map<string, T>();
    const indices = new Map<string, Map<string, Set<string>>>([...this.indices.keys()].map((name) => [name, new Map()]));
    // In the order of indexers, as indexValues gives the values: one array walk per object, not two Map iterators.
    const newIndices = [...indices.values()];
    for (let e = 0; e < objects.length; e++) {
      const key = keys[e]!;
      const obj = objects[e]!;
      if (slicer.due()) await slicer.yield();
      let values: string[][];
      try {
        values = this.indexValues(obj);
      } catch (err) {
        onIndexFailure?.(key, obj, err);
        continue;
      }
      const previous = items.get(key);
      if (previous === undefined) {
        // Nearly always: a list names each object once.
        for (let i = 0; i < newIndices.length; i++) fileUnder(newIndices[i]!, key, values[i]!);
      } else reindexInto(indices, key, this.indexValues(previous), values);
      items.set(key, obj);
    }
    this.items = items;
    this.indices = indices;
    this.setResourceVersion(resourceVersion);
  }

  /** Records that the collection reached `resourceVersion` with no change to this store (a watch bookmark). */
  bookmark(resourceVersion: string): void {
    this.setResourceVersion(resourceVersion);
  }

  /**
   * The resourceVersion of the last change applied to the store (client-go's
   * LastStoreSyncResourceVersion with AtomicFIFO): what a reader of this store has seen
   * at least, e.g. to tell whether its own write has come back through the watch yet.
   */
  lastStoreSyncResourceVersion(namespace?: string): string {
    return (namespace !== undefined && this.namespaceVersion?.(namespace)) || this.storeResourceVersion;
  }

  /** In a sharded informer: the version of the list and watch holding a namespace (undefined: use the store's). */
  followNamespaceVersions(namespaceVersion: (namespace: string) => string | undefined): void {
    this.namespaceVersion = namespaceVersion;
  }

  /** The cached object with the same key as `obj`. */
  get(obj: T): T | undefined {
    return this.items.get(metaNamespaceKeyFunc(obj));
  }

  /** The cached object under "namespace/name" (or "name"). */
  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  /** Every cached object, in no particular order. */
  list(): T[] {
    return [...this.items.values()];
  }

  /** Objects cached. */
  get size(): number {
    return this.items.size;
  }

  /** Every cached key. */
  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** The objects filed under `value` in the named index. Throws for an unknown index. */
  byIndex(indexName: string, value: string): T[] {
    return this.objectsOf(this.indexKeys(indexName, value));
  }

  /** The objects sharing at least one value of the named index with `obj`. */
  index(indexName: string, obj: T): T[] {
    const index = this.indexNamed(indexName);
    const keys = new Set<string>();
    for (const value of this.indexers.get(indexName)?.(obj) ?? []) {
      for (const key of index.get(value) ?? []) keys.add(key);
    }
    return this.objectsOf(keys);
  }

  /** The keys filed under `value` in the named index. Throws for an unknown index. */
  indexKeys(indexName: string, value: string): string[] {
    return [...(this.indexNamed(indexName).get(value) ?? [])];
  }

  /** Every value that currently has objects in the named index. */
  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  /** The index functions, by index name. */
  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.indexers);
  }

  /** Adds index functions and indexes the objects already cached; a name may be registered only once. */
  addIndexers(indexers: Indexers<T>): void {
    const conflicts = Object.keys(indexers).filter((name) => this.indexers.has(name));
    if (conflicts.length > 0) throw new Error(`indexer conflict: ${conflicts.join(", ")}`);
    for (const [name, fn] of Object.entries(indexers)) {
      this.indexers.set(name, fn);
      this.indexFuncs.push(fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) moveKey(index, key, [], fn(obj));
    }
  }

  /** Each index function's values for `obj`, in the order of `indexers` (and so of `indices`). */
  private indexValues(obj: T): string[][] {
    const values: string[][] = [];
    for (let i = 0; i < this.indexFuncs.length; i++) values.push(this.indexFuncs[i]!(obj));
    return values;
  }

  private advanceTo(obj: T): void {
    const resourceVersion = obj.metadata?.resourceVersion;
    if (resourceVersion) this.setResourceVersion(resourceVersion);
  }

  private setResourceVersion(resourceVersion: string): void {
    this.storeResourceVersion = resourceVersion;
    if (!this.resourceVersionGauge) return;
    const value = resourceVersionForMetrics(resourceVersion);
    if (value !== undefined) this.resourceVersionGauge.set(value);
  }

  private objectsOf(keys: Iterable<string>): T[] {
    const objects: T[] = [];
    for (const key of keys) {
      const obj = this.items.get(key);
      if (obj !== undefined) objects.push(obj);
    }
    return objects;
  }

  private indexNamed(indexName: string): Map<string, Set<string>> {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`index with name "${indexName}" does not exist`);
    return index;
  }
}

/** Moves `key` from the old index values to the new ones (both in the order of `indices`). */
function reindexInto(
  indices: Map<string, Map<string, Set<string>>>,
  key: string,
  oldValues: readonly (readonly string[])[],
  newValues: readonly (readonly string[])[],
): void {
  let i = 0;
  for (const index of indices.values()) {
    moveKey(index, key, oldValues[i] ?? [], newValues[i] ?? []);
    i++;
  }
}

/** Files `key` under each of `values`. */
function fileUnder(index: Map<string, Set<string>>, key: string, values: readonly string[]): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}

/**
 * Files `key` under the values in `after` and takes it out of those only in `before`, dropping
 * emptied value sets. Most objects have one value per index, so plain arrays serve, not sets.
 */
function moveKey(index: Map<string, Set<string>>, key: string, before: readonly string[], after: readonly string[]): void {
  for (const value of before) {
    if (after.includes(value)) continue;
    const keys = index.get(value);
    keys?.delete(key);
    if (keys?.size === 0) index.delete(value);
  }
  fileUnder(index, key, after);
}
