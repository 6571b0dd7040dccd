// How urgent a queued key is. Keys from live watch events go first ("normal"); keys that only replay state the
// controller has not seen yet (an informer's initial list, a periodic resync) wait behind them ("low"), so that
// after a start or a failover a change a user just made is not stuck behind every existing object. The queue
// still hands out low-priority keys at a guaranteed share (see PriorityFifo), so they cannot starve.

/**
 * How urgent a queued key is: "normal" for keys from live events, "low" for keys that only replay known state
 * (an informer's initial list, a resync). Low ones wait behind normal ones but get a guaranteed share.
 */
export type Priority = "normal" | "low";

/** Options of an add to a work queue. */
export interface AddOptions {
  /** Default "normal"; for a delayed or rate-limited add of a key being processed, the priority it was handed out with. */
  priority?: Priority | undefined;
}

/** True when `a` goes before `b`. */
export function outranks(a: Priority, b: Priority): boolean {
  return a === "normal" && b === "low";
}

/** The higher of the two. */
export function higherOf(a: Priority, b: Priority): Priority {
  return outranks(b, a) ? b : a;
}

/** `value`, checked: callers outside TypeScript can pass anything. */
export function checkedPriority(value: unknown): Priority {
  if (value === "normal" || value === "low") return value;
  throw new Error(`workqueue priority ${JSON.stringify(value)} is not one of "normal" or "low"`);
}
