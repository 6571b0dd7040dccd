// A finalizer around a reconcile: the object cannot go before the controller has cleaned up
// after it. The finalizer is on the object before the normal reconcile ever runs, so whatever
// that reconcile made outside the object, the cleanup gets its turn before the object is gone.
//
// Each write carries the resourceVersion of the object the decision was made on: a stale cache
// gets 409 Conflict, the error goes back to the workqueue, and the next attempt reads a fresher
// cache. Nothing is lost and no one else's change is overwritten.
import type { KubeClient } from "../kube/client.ts";
import { isNotFound } from "../kube/errors.ts";
import type { ResourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ReconcileResult } from "./reconciler.ts";

/** What `finalizer` runs: the reconcile proper, and the cleanup before the object may go. */
export interface FinalizerHandlers<T extends KubeObject> {
  /** The normal reconcile, run while the object is not being deleted and holds the finalizer. */
  apply(object: T): Promise<ReconcileResult>;
  /**
   * Runs once the object is being deleted, while it still holds the finalizer. Resolving with
   * nothing removes the finalizer; `{ requeueAfterMs }` (> 0) means not finished yet: the
   * finalizer stays and the key comes back then; throwing keeps it too (retried with backoff).
   * It must tolerate running more than once, and running without `apply` ever having finished.
   */
  cleanup(object: T): Promise<ReconcileResult>;
  /** Recorded in managedFields for the finalizer's writes. */
  fieldManager?: string;
}

/** True when `object` lists `finalizerName` in metadata.finalizers. */
export function hasFinalizer(object: KubeObject, finalizerName: string): boolean {
  return object.metadata?.finalizers?.includes(finalizerName) ?? false;
}

/**
 * Reconciles `object` (as the cache has it) under the finalizer `finalizerName`, which must be
 * this controller's alone:
 * - not being deleted, finalizer absent: adds it and returns; the update that adds it brings the
 *   key back (a predicate on the primary resource must let that update through);
 * - not being deleted, finalizer present: `apply`;
 * - being deleted, finalizer present: `cleanup`, then removes the finalizer (already gone: fine);
 * - being deleted, finalizer gone: nothing left to do.
 */
export async function finalizer<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceType<T>,
  finalizerName: string,
  object: T,
  handlers: FinalizerHandlers<T>,
): Promise<ReconcileResult> {
  const held = hasFinalizer(object, finalizerName);
  if (!object.metadata?.deletionTimestamp) {
    if (held) return handlers.apply(object);
    await writeFinalizers(client, resource, object, [...(object.metadata?.finalizers ?? []), finalizerName], handlers.fieldManager);
    return;
  }
  if (!held) return;
  const result = await handlers.cleanup(object);
  if (result && result.requeueAfterMs > 0) return result;
  const rest = (object.metadata.finalizers ?? []).filter((name) => name !== finalizerName);
  await writeFinalizers(client, resource, object, rest, handlers.fieldManager);
  return;
}

/** Replaces metadata.finalizers if the object is still at the cached resourceVersion; an object already gone is no error. */
async function writeFinalizers<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceType<T>,
  object: T,
  finalizers: string[],
  fieldManager: string | undefined,
): Promise<void> {
  const { name, namespace, resourceVersion } = object.metadata ?? {};
  if (!name || !resourceVersion) {
    throw new Error(`finalizer: ${resource.kind} "${name ?? ""}" has no metadata.${name ? "resourceVersion" : "name"}; expected the object as read from the API server`);
  }
  const patch = { metadata: { finalizers, resourceVersion } };
  try {
    await client.dynamic.resource<T>(resource, resource.namespaced ? namespace : undefined).patch(name, patch, "merge", fieldManager ? { fieldManager } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
