// Which Network events need a reconcile.
import type { Predicate } from "../../pkg/controller/predicates.ts";
import { isResync } from "../../pkg/informer/event-handler.ts";
import type { Network } from "./network-resource.ts";

/**
 * Spec changes (a new generation), deletion and resyncs (drift checks) need a reconcile; the
 * controller's own writes (finalizer, status) do not. Neither does a generation say anything
 * across objects: a relist folds a delete and a re-create under the same name into one update,
 * with a new UID and quite possibly the same generation.
 */
export const networkNeedsReconcile: Predicate<Network> = {
  update: (old, network) =>
    isResync(old, network) ||
    old.metadata?.uid !== network.metadata?.uid ||
    old.metadata?.generation !== network.metadata?.generation ||
    old.metadata?.deletionTimestamp !== network.metadata?.deletionTimestamp,
};
