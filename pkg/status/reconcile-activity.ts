// What one reconcile loop has been doing lately, for the status page: finished reconciles by
// outcome, the rate over the last minute, the spread of recent durations, and the last errors
// with the key they were about. Bounded memory whatever the load: a ring of recent samples,
// one counter per second of the rate window, a handful of errors.
import type { Clock } from "../clock/clock.ts";
import type { KeyTiming } from "../controller/reconcile-loop-snapshot.ts";
import type { ReconcileOutcome } from "../controller/reconcile-observer.ts";
import { errorMessage } from "../errors/expected-error.ts";
import type { ReconcileErrorStatus, ReconcileLoopStatus, ReconcileOutcomeCounts } from "./status-snapshot.ts";

export interface ReconcileActivityLimits {
  /** Recent reconciles the quantiles are taken over. */
  samples: number;
  /** Errors kept. */
  errors: number;
}

const defaultReconcileActivityLimits: ReconcileActivityLimits = { samples: 256, errors: 5 };

/** The part of a loop's status that its reconciles alone tell. */
export type ReconcileActivitySummary = Pick<
  ReconcileLoopStatus,
  "outcomes" | "ratePerSecond" | "p50Seconds" | "p99Seconds" | "sampleCount" | "slowest" | "lastErrors"
>;

const rateWindowSeconds = 60;

export class ReconcileActivity {
  private readonly outcomes: ReconcileOutcomeCounts = { success: 0, error: 0, requeue: 0, requeueAfter: 0, terminalError: 0 };
  // Two parallel rings rather than an object per reconcile: this runs after every reconcile, and a
  // key is turned into text only when the page asks (a garbage-collector key is a graph node).
  private readonly sampleKeys: unknown[] = [];
  private readonly sampleSeconds: number[] = [];
  private nextSample = 0;
  /** Reconciles finished in each second of the rate window, and which second each slot holds. */
  private readonly perSecond = new Array<number>(rateWindowSeconds).fill(0);
  private readonly slotSecond = new Array<number>(rateWindowSeconds).fill(-1);
  private readonly errors: ReconcileErrorStatus[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly limits: ReconcileActivityLimits = defaultReconcileActivityLimits,
  ) {}

  /** One reconcile of `key` ended; `error` when it failed (retried, or not when `outcome` is terminal). */
  finished(key: unknown, outcome: ReconcileOutcome, seconds: number, error?: unknown): void {
    this.outcomes[outcomeField[outcome]]++;
    this.sampleKeys[this.nextSample] = key;
    this.sampleSeconds[this.nextSample] = seconds;
    this.nextSample = (this.nextSample + 1) % this.limits.samples;
    this.countThisSecond();
    if (error !== undefined) {
      this.errors.unshift({ at: this.clock.now(), key: String(key), message: errorMessage(error), terminal: outcome === "terminal_error" });
      this.errors.length = Math.min(this.errors.length, this.limits.errors);
    }
  }

  summary(): ReconcileActivitySummary {
    const sorted = [...this.sampleSeconds].sort((a, b) => a - b);
    let slowestIndex: number | undefined;
    this.sampleSeconds.forEach((seconds, i) => {
      if (slowestIndex === undefined || seconds > (this.sampleSeconds[slowestIndex] ?? 0)) slowestIndex = i;
    });
    const slowest: KeyTiming | undefined =
      slowestIndex === undefined ? undefined : { key: String(this.sampleKeys[slowestIndex]), seconds: this.sampleSeconds[slowestIndex] ?? 0 };
    return {
      outcomes: { ...this.outcomes },
      ratePerSecond: this.finishedInWindow() / rateWindowSeconds,
      p50Seconds: quantile(sorted, 0.5),
      p99Seconds: quantile(sorted, 0.99),
      sampleCount: sorted.length,
      slowest,
      lastErrors: this.errors.map((e) => ({ ...e })),
    };
  }

  private countThisSecond(): void {
    const second = Math.floor(this.clock.monotonic() / 1000);
    const slot = second % rateWindowSeconds;
    if (this.slotSecond[slot] !== second) {
      this.slotSecond[slot] = second;
      this.perSecond[slot] = 0;
    }
    this.perSecond[slot] = (this.perSecond[slot] ?? 0) + 1;
  }

  private finishedInWindow(): number {
    const now = Math.floor(this.clock.monotonic() / 1000);
    let total = 0;
    for (let slot = 0; slot < rateWindowSeconds; slot++) {
      const second = this.slotSecond[slot] ?? -1;
      if (second > now - rateWindowSeconds && second <= now) total += this.perSecond[slot] ?? 0;
    }
    return total;
  }
}

const outcomeField: Record<ReconcileOutcome, keyof ReconcileOutcomeCounts> = {
  success: "success",
  error: "error",
  requeue: "requeue",
  requeue_after: "requeueAfter",
  terminal_error: "terminalError",
};

/** Nearest-rank quantile of ascending `sorted`. */
function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
