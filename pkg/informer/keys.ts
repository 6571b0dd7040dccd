// Cache keys: `namespace/name` for namespaced objects, `name` for cluster-scoped ones.
import type { KubeObject } from "../kube/objects.ts";
import { DeletedFinalStateUnknown } from "./deltas.ts";

/** The key client-go's MetaNamespaceKeyFunc computes; throws for an object without a name. */
export function metaNamespaceKeyFunc(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error(`object has no metadata.name: ${JSON.stringify(obj).slice(0, 200)}`);
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** Like metaNamespaceKeyFunc, but a tombstone keeps the key it was filed under. */
export function deletionHandlingKeyFunc(obj: KubeObject | DeletedFinalStateUnknown): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : metaNamespaceKeyFunc(obj);
}

/** Splits a cache key back into namespace ("" when cluster-scoped) and name. */
export function splitMetaNamespaceKey(key: string): {
  /** "" for a cluster-scoped object's key. */
  namespace: string;
  /** The object's name. */
  name: string;
} {
  const parts = key.split("/");
  if (parts.length === 1) return { namespace: "", name: key };
  if (parts.length === 2 && parts[0] && parts[1]) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected cache key format: "${key}"`);
}
