// controller-runtime's reconcile contract: a reconcile returns nothing (done), asks to run
// again after a delay or with rate-limited backoff, or throws to be retried with that backoff.

/** Return this to have the key reconciled again after `requeueAfterMs`, even if nothing changes. */
export interface RequeueAfter {
  /** Milliseconds until the key is reconciled again; the key's failure count is reset. */
  requeueAfterMs: number;
}

/**
 * Return this to have the key reconciled again with rate-limited backoff without calling it a
 * failure: a normal wait, e.g. for a cache to show the controller's own last write. It is counted
 * as `requeue`, not as an error, and logged by nobody but the reconciler.
 */
export interface Requeue {
  /** Always true: what tells this result from the others. */
  requeue: true;
}

/** What a reconcile resolves with: nothing when done, `{ requeueAfterMs }` to look again later, or `{ requeue: true }` to wait with backoff. */
export type ReconcileResult = void | RequeueAfter | Requeue;

/** Reconciles one key at a time per key: the controller core's worker calls it (see `Controller.reconcileWith`). */
export interface Reconciler<K = string> {
  /** `signal` aborts when the process must stop at once (leadership lost). */
  reconcile(key: K, signal: AbortSignal): Promise<ReconcileResult>;
}

/**
 * Throw this when retrying cannot help (the object is invalid until someone changes it):
 * the error is logged and counted, and the key is not requeued. An error with a TerminalError
 * among its causes (`new Error("…", { cause })`) counts as one.
 */
export class TerminalError extends Error {
  /** "TerminalError". */
  override readonly name = "TerminalError";
}
