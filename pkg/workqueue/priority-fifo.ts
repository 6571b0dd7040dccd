// The keys a workqueue will hand out: one first-in first-out line per priority, normal before low, with a floor
// for low. controller-runtime's priority queue serves strictly by priority, and a steady stream of normal keys
// (requeues, busy watches) then starves the low ones indefinitely (controller-runtime#3496). Here, while low keys
// wait, at most `normalPerLow` normal keys are handed out in a row before the oldest low key is: low keys get at
// least 1 / (normalPerLow + 1) of the hand-outs, and a normal key waits behind at most one low key per
// `normalPerLow` normal keys ahead of it.
// Every operation is O(1) (amortized): a key moved up leaves a superseded entry behind, skipped when reached.
import { Fifo } from "../collections/fifo.ts";
import { outranks, type Priority } from "./priority.ts";

interface Entry<T> {
  readonly key: T;
  readonly priority: Priority;
}

/** Normal keys handed out in a row, at most, while low keys wait. */
export const defaultNormalPerLow = 9;

export class PriorityFifo<T> {
  private readonly lines: Record<Priority, Fifo<Entry<T>>> = { normal: new Fifo(), low: new Fifo() };
  /** Each queued key's current entry; entries in a line that are not here are superseded. */
  private readonly entries = new Map<T, Entry<T>>();
  private readonly counts: Record<Priority, number> = { normal: 0, low: 0 };
  /** Normal keys handed out since the last low one while low keys were waiting. */
  private normalStreak = 0;

  constructor(private readonly normalPerLow: number = defaultNormalPerLow) {
    if (!Number.isInteger(normalPerLow) || normalPerLow < 1) {
      throw new Error(`workqueue normalPerLow ${normalPerLow} is not a positive integer`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Queues `key` at the end of its priority's line. A key already queued at a lower priority moves to the end of
   * the higher line (first come, first served among equals); one queued at the same or a higher priority stays put.
   */
  put(key: T, priority: Priority): void {
    const current = this.entries.get(key);
    if (current) {
      if (!outranks(priority, current.priority)) return;
      this.counts[current.priority]--;
      // A line left with superseded entries only is dropped rather than kept until it is next read.
      if (this.counts[current.priority] === 0) this.lines[current.priority] = new Fifo();
    }
    const entry: Entry<T> = { key, priority };
    this.entries.set(key, entry);
    this.lines[priority].push(entry);
    this.counts[priority]++;
  }

  /** Removes and returns the next key to hand out, or undefined when none is queued. */
  shift(): T | undefined {
    const priority = this.nextPriority();
    const line = this.lines[priority];
    for (let entry = line.shift(); entry; entry = line.shift()) {
      if (this.entries.get(entry.key) !== entry) continue;
      this.entries.delete(entry.key);
      this.counts[priority]--;
      this.normalStreak = priority === "normal" && this.counts.low > 0 ? this.normalStreak + 1 : 0;
      return entry.key;
    }
    return undefined;
  }

  private nextPriority(): Priority {
    if (this.counts.low === 0) return "normal";
    if (this.counts.normal === 0 || this.normalStreak >= this.normalPerLow) return "low";
    return "normal";
  }
}
