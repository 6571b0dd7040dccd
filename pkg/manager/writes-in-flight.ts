// The writes a leader sent and has not heard back about. A Lease handed over while one of them is
// still on its way (queued in a proxy, behind a slow API server) lets it land after the next
// leader started: two leaders' writes at once. So a leader stepping down waits for its writes'
// answers before it releases the Lease, and one that cannot know keeps the Lease until it expires.
import { type Clock, realClock } from "../clock/clock.ts";
import type { WriteSettled } from "../kube/rest-client.ts";

export class WritesInFlight {
  private count = 0;
  /** Monotonic time of the last write that settled without an answer; -Infinity for none. */
  private lastUnansweredAt = Number.NEGATIVE_INFINITY;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly clock: Clock = realClock) {}

  /** Counts a write as sent; the callback, told how it settled, counts it out (once). */
  started(): WriteSettled {
    this.count++;
    let settled = false;
    return (answered) => {
      if (settled) return;
      settled = true;
      this.count--;
      if (!answered) this.lastUnansweredAt = this.clock.monotonic();
      if (this.count === 0) for (const wake of this.waiting) wake();
    };
  }

  /**
   * Waits up to `timeoutMs` for every write sent to settle. True when they did and none went
   * unanswered within the last `landsWithinMs` (a write that got no answer may land until then).
   */
  async allAnswered(timeoutMs: number, landsWithinMs: number): Promise<boolean> {
    if (this.count > 0) {
      let wake!: () => void;
      const idle = new Promise<void>((resolve) => (wake = resolve));
      this.waiting.add(wake);
      const timer = this.clock.setTimer(timeoutMs, wake);
      await idle;
      timer.cancel();
      this.waiting.delete(wake);
    }
    return this.count === 0 && this.clock.monotonic() - this.lastUnansweredAt > landsWithinMs;
  }
}
