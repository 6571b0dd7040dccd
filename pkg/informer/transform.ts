// Transforms an informer applies to objects before caching them.
import type { KubeObject } from "../kube/objects.ts";

/** Drops metadata.managedFields: controllers never read them, and they are often the bulk of an object. */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
