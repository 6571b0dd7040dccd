// What a reconcile runner can say of itself at any moment: whether it runs, its workers, the keys
// in their hands and how long each has been there, and how many keys wait. Neutral data, for
// whoever shows it: the status page adds what its reconcile observer saw (pkg/status).

/** idle: not started (a standby, or waiting for its caches). */
export type ReconcileLoopState = "idle" | "running" | "stopped" | "crashed";

/** A key in a worker's hands, and for how long. */
export interface KeyTiming {
  /** The key, as text. */
  key: string;
  /** Seconds since the worker took it. */
  seconds: number;
}

/** A reconcile loop's state at one moment, for the status page. */
export interface ReconcileLoopSnapshot {
  /** The loop's (controller's) name. */
  name: string;
  /** The workqueue's name (its workqueue_* metrics carry it). */
  queue: string;
  /** Whether the workers run. */
  state: ReconcileLoopState;
  /** How many workers it has. */
  workers: number;
  /** Keys waiting for a worker. */
  depth: number;
  /** Keys in a worker's hands right now, longest first. */
  inFlight: KeyTiming[];
}
