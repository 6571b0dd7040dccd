// Index functions every controller can use. An index function maps an object to the
// values under which the indexer files it.
import type { KubeObject, OwnerReference } from "../kube/objects.ts";
import { controllerRefOf } from "../kube/owner-references.ts";
import type { IndexedStore } from "./store.ts";

export const namespaceIndexName = "namespace";

/** Files objects by namespace ("" for cluster-scoped ones), like client-go's MetaNamespaceIndexFunc. */
export function namespaceIndex(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ""];
}

export const controllerUidIndexName = "controllerUid";

/** Files objects by the UID of their controller (the owner reference with `controller: true`), if any. */
export function controllerUidIndex(obj: KubeObject): string[] {
  const ref = controllerRefOf(obj);
  return ref ? [ref.uid] : [];
}

export const controllerRefIndexName = "controllerRef";

/**
 * The value the controllerRef index files objects under (kube-controller-manager's
 * PodControllerIndexKey): `namespace/Kind/Name/UID` of the controller reference, or the bare
 * namespace for objects without a controller, so one lookup finds an owner's objects and
 * another the orphans it might adopt.
 */
export function controllerRefIndexKey(namespace: string, ref: Pick<OwnerReference, "kind" | "name" | "uid"> | undefined): string {
  return ref ? `${namespace}/${ref.kind}/${ref.name}/${ref.uid}` : namespace;
}

/** Files objects by their controller reference as a whole (kind, name and UID), orphans by namespace. */
export function controllerRefIndex(obj: KubeObject): string[] {
  return [controllerRefIndexKey(obj.metadata?.namespace ?? "", controllerRefOf(obj))];
}

/** The namespaces `store` holds objects of ("" for cluster-scoped ones), by its namespace index when it has one. */
export function namespacesIn<T extends KubeObject>(store: IndexedStore<T>): string[] {
  if (namespaceIndexName in store.getIndexers()) return store.listIndexFuncValues(namespaceIndexName);
  return [...new Set(store.list().map((obj) => obj.metadata?.namespace ?? ""))];
}
