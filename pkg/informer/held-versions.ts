// A cache seen as the versions it holds: what a relist may keep instead of a second copy. An
// object listed again in the resourceVersion the cache holds is the same object (the API server
// gives every change a new version), and the cached one went through the same transform.
import type { HeldVersion } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { IndexedStore, Store } from "./store.ts";

/** The cached object under namespace ("" when cluster-scoped) and name, when it is that resourceVersion. */
export function heldVersionsOf<T extends KubeObject>(store: Pick<Store<T>, "getByKey">): (namespace: string, name: string, resourceVersion: string) => T | undefined {
  return (namespace, name, resourceVersion) => {
    const cached = store.getByKey(namespace ? `${namespace}/${name}` : name);
    return cached?.metadata?.resourceVersion === resourceVersion ? cached : undefined;
  };
}

/** The same, for a decoder: undefined while the cache is empty (a first list holds nothing to keep). */
export function heldVersionsWhileFilled(store: IndexedStore<KubeObject>): () => HeldVersion | undefined {
  const held = heldVersionsOf(store);
  return () => (store.size > 0 ? held : undefined);
}
