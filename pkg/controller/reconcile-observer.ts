// What a reconcile runner tells whoever watches it: each reconcile that ended and how, a
// reconcile that threw a programming error, and how many workers it runs and has busy. The
// runner knows none of its observers: the Prometheus metrics (pkg/metrics) and the status page's
// activity (pkg/status) are two of them, handed in together through combinedReconcileObserver.
import { ignoringCalls } from "../noop/ignoring-calls.ts";

/** How a reconcile ended, as controller-runtime's controller_runtime_reconcile_total labels it. */
export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after" | "terminal_error";

/** `loop` is the runner's name (the `controller` label of controller-runtime's metrics). */
export interface ReconcileObserver {
  /**
   * A reconcile of `key` ended after `seconds`; `error` is what it threw when it failed (retried,
   * or not when `outcome` is terminal). `key` is the queue's item as it is: turn it into text only
   * when needed, since this runs after every reconcile.
   */
  finished(loop: string, key: unknown, outcome: ReconcileOutcome, seconds: number, error?: unknown): void;
  /** The reconcile threw a programming error (a panic in Go terms); `finished` follows with "error". */
  panicked(loop: string): void;
  /** Workers reconciling right now. */
  setActiveWorkers(loop: string, count: number): void;
  /** The loop's number of workers, told each time its workers start. */
  setMaxConcurrentReconciles(loop: string, count: number): void;
}

export const noopReconcileObserver: ReconcileObserver = ignoringCalls(["finished", "panicked", "setActiveWorkers", "setMaxConcurrentReconciles"]);

/** One observer telling each of `observers`, in the order given. */
export function combinedReconcileObserver(...observers: readonly ReconcileObserver[]): ReconcileObserver {
  return {
    finished: (loop, key, outcome, seconds, error) => {
      for (const observer of observers) observer.finished(loop, key, outcome, seconds, error);
    },
    panicked: (loop) => {
      for (const observer of observers) observer.panicked(loop);
    },
    setActiveWorkers: (loop, count) => {
      for (const observer of observers) observer.setActiveWorkers(loop, count);
    },
    setMaxConcurrentReconciles: (loop, count) => {
      for (const observer of observers) observer.setMaxConcurrentReconciles(loop, count);
    },
  };
}
