// What a reconcile runner can say of itself at any moment: whether it runs, its workers, the keys
// in their hands and how long each has been there, and how many keys wait. Neutral data, for
// whoever shows it: the status page adds what its reconcile observer saw (pkg/status).

/** idle: not started (a standby, or waiting for its caches). */
export type ReconcileLoopState = "idle" | "running" | "stopped" | "crashed";

export interface KeyTiming {
  key: string;
  seconds: number;
}

export interface ReconcileLoopSnapshot {
  name: string;
  /** The workqueue's name (its workqueue_* metrics carry it). */
  queue: string;
  state: ReconcileLoopState;
  workers: number;
  /** Keys waiting for a worker. */
  depth: number;
  /** Keys in a worker's hands right now, longest first. */
  inFlight: KeyTiming[];
}
