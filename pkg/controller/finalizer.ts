// A finalizer around a reconcile: the object cannot go before the controller has cleaned up
// after it. The finalizer is on the object before the normal reconcile ever runs, so whatever
// that reconcile made outside the object, the cleanup gets its turn before the object is gone.
//
// Each write carries the resourceVersion of the object the decision was made on: a stale cache
// gets 409 Conflict, the error goes back to the workqueue, and the next attempt reads a fresher
// cache. Nothing is lost and no one else's change is overwritten.
import type { KubeClient } from "../kube/client.ts";
import { addFinalizer, hasFinalizer, removeFinalizer } from "../kube/finalizers.ts";
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
  const target = { client, resource, fieldManager: handlers.fieldManager };
  if (!object.metadata?.deletionTimestamp) {
    if (held) return handlers.apply(object);
    await addFinalizer(target, object, finalizerName);
    return;
  }
  if (!held) return;
  const result = await handlers.cleanup(object);
  if (result && ("requeue" in result || result.requeueAfterMs > 0)) return result;
  await removeFinalizer(target, object, finalizerName);
  return;
}
