// Index functions every controller can use. An index function maps an object to the
// values under which the indexer files it.
import type { KubeObject } from "../kube/objects.ts";
import { controllerRefOf } from "../kube/owner-references.ts";

export const namespaceIndexName = "namespace";

/** Files objects by namespace ("" for cluster-scoped ones), like client-go's MetaNamespaceIndexFunc. */
export function namespaceIndex(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ""];
}

export const ownerUidIndexName = "ownerUid";

/** Files objects by the UID of each of their owners: "which objects does X own?" without a scan. */
export function ownerUidIndex(obj: KubeObject): string[] {
  return (obj.metadata?.ownerReferences ?? []).map((ref) => ref.uid);
}

export const controllerUidIndexName = "controllerUid";

/** Files objects by the UID of their controller (the owner reference with `controller: true`), if any. */
export function controllerUidIndex(obj: KubeObject): string[] {
  const ref = controllerRefOf(obj);
  return ref ? [ref.uid] : [];
}
