// controller-runtime's reconcile contract: a reconcile returns nothing (done), asks to run
// again after a delay, or throws to be retried with rate-limited backoff.

/** Return this to have the key reconciled again after `requeueAfterMs`, even if nothing changes. */
export interface RequeueAfter {
  /** Milliseconds until the key is reconciled again; the key's failure count is reset. */
  requeueAfterMs: number;
}

/** What a reconcile resolves with: nothing when done, or `{ requeueAfterMs }` to look again later. */
export type ReconcileResult = void | RequeueAfter;

/** Reconciles one key at a time per key: the controller core's worker calls it (see `Controller.reconcileWith`). */
export interface Reconciler<K = string> {
  /** `signal` aborts when the process must stop at once (leadership lost). */
  reconcile(key: K, signal: AbortSignal): Promise<ReconcileResult>;
}

/**
 * Throw this when retrying cannot help (the object is invalid until someone changes it):
 * the error is logged and counted, and the key is not requeued.
 */
export class TerminalError extends Error {
  /** "TerminalError". */
  override readonly name = "TerminalError";
}
