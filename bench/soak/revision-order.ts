// Puts the changes of several watches back into one order. Each watch delivers its resource in
// etcd revision order, but two watches race each other: a Pod created for a scale-up can arrive
// before the ReplicaSet's new spec. Changes wait here for a short hold-back, then go out sorted
// by revision, so checkers see Pods and their ReplicaSet (or dependents and their owners) in the
// order the API server stored them.
import type { ObservedChange } from "./observed-change.ts";

export class RevisionOrder {
  #buffer: ObservedChange[] = [];
  #deliveredRevision = 0;
  #highestRevision = 0;
  #late = 0;

  constructor(
    private readonly holdBackMs: number,
    private readonly deliver: (change: ObservedChange) => void,
  ) {}

  /** Changes that arrived after a later revision had already gone out (a watch lagged more than the hold-back). */
  get lateChanges(): number {
    return this.#late;
  }

  /** The highest revision seen so far: where a deletion found by a relist is placed. */
  get highestRevision(): number {
    return this.#highestRevision;
  }

  push(change: ObservedChange): void {
    this.#highestRevision = Math.max(this.#highestRevision, change.revision);
    if (change.revision < this.#deliveredRevision) this.#late++;
    this.#buffer.push(change);
  }

  /** Delivers every change held back long enough (everything with `all`), lowest revision first. */
  flush(now: number, all = false): void {
    // Anything below the newest revision that is due goes out with it: it happened earlier.
    let due = all ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    for (const change of this.#buffer) if (now - change.receivedAt >= this.holdBackMs) due = Math.max(due, change.revision);
    const ready = this.#buffer.filter((change) => change.revision <= due);
    if (ready.length === 0) return;
    this.#buffer = this.#buffer.filter((change) => change.revision > due);
    // Array.prototype.sort is stable: equal revisions keep their arrival order.
    ready.sort((a, b) => a.revision - b.revision);
    for (const change of ready) {
      this.#deliveredRevision = Math.max(this.#deliveredRevision, change.revision);
      this.deliver(change);
    }
  }
}
