// Read access to an informer's cache by name, namespace and labels (client-go's generated listers).
import type { KubeObject } from "../kube/objects.ts";
import type { Selector } from "../labels/selector.ts";
import { namespaceIndexName } from "./index-funcs.ts";
import type { IndexedStore } from "./store.ts";

/**
 * Lists and gets cached objects. They are shared with every other reader: never mutate them.
 * Reading is synchronous and sends no request; before the cache has synced it may miss objects.
 *
 * @hideconstructor
 */
export class Lister<T extends KubeObject = KubeObject> {
  constructor(private readonly indexer: IndexedStore<T>) {}

  /** Every cached object, or those whose labels match `selector`. */
  list(selector?: Selector): T[] {
    return filterByLabels(this.indexer.list(), selector);
  }

  /** A cluster-scoped object by name (for namespaced ones, use `namespace(ns).get`). */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  /** The objects of one namespace. */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

/**
 * The cached objects of one namespace (`lister.namespace(ns)`).
 *
 * @hideconstructor
 */
export class NamespaceLister<T extends KubeObject = KubeObject> {
  constructor(
    private readonly indexer: IndexedStore<T>,
    /** The namespace. */
    readonly namespace: string,
  ) {}

  /** The namespace's objects, or those whose labels match `selector`; uses the namespace index when there is one. */
  list(selector?: Selector): T[] {
    const inNamespace =
      namespaceIndexName in this.indexer.getIndexers()
        ? this.indexer.byIndex(namespaceIndexName, this.namespace)
        : this.indexer.list().filter((obj) => (obj.metadata?.namespace ?? "") === this.namespace);
    return filterByLabels(inNamespace, selector);
  }

  /** The namespace's object with this name. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(`${this.namespace}/${name}`);
  }
}

function filterByLabels<T extends KubeObject>(objects: T[], selector: Selector | undefined): T[] {
  return selector ? objects.filter((obj) => selector.matches(obj.metadata?.labels)) : objects;
}
