// The status page's reconcile observer: keeps each loop's recent activity (ReconcileActivity)
// by the runner's name, which the status board joins to the runner's own snapshot. Worker counts
// are not kept here: the snapshot has them.
import { type Clock, realClock } from "../clock/clock.ts";
import type { ReconcileObserver, ReconcileOutcome } from "../controller/reconcile-observer.ts";
import { ReconcileActivity, type ReconcileActivityLimits, type ReconcileActivitySummary } from "./reconcile-activity.ts";

export class ReconcileActivityObserver implements ReconcileObserver {
  private readonly loops = new Map<string, ReconcileActivity>();

  constructor(
    private readonly clock: Clock = realClock,
    private readonly limits?: ReconcileActivityLimits,
  ) {}

  finished(loop: string, key: unknown, outcome: ReconcileOutcome, seconds: number, error?: unknown): void {
    let activity = this.loops.get(loop);
    if (!activity) {
      activity = new ReconcileActivity(this.clock, this.limits);
      this.loops.set(loop, activity);
    }
    activity.finished(key, outcome, seconds, error);
  }

  panicked(): void {}

  setActiveWorkers(): void {}

  setMaxConcurrentReconciles(): void {}

  /** What `loop` has done lately; all zero before its first reconcile ended. */
  summary(loop: string): ReconcileActivitySummary {
    return (this.loops.get(loop) ?? new ReconcileActivity(this.clock, this.limits)).summary();
  }
}
