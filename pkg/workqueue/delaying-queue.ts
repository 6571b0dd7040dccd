// client-go's delaying queue (util/workqueue/delaying_queue.go): `addAfter` holds an item back until its ready time.
// One clock timer is kept armed for the earliest ready time and re-armed whenever that changes, so client-go's 10 s
// heartbeat (insurance for its channel-driven loop) has nothing left to catch.
// As in controller-runtime, a delayed key is added at the priority it was given, and a requeue of a key in process
// given none keeps the priority that key was handed out at: an initial-list key retried is still an initial-list key.
import type { Timer } from "../clock/clock.ts";
import { type RetryMetrics, createRetryMetrics } from "./metrics.ts";
import { type AddOptions, checkedPriority, higherOf, type Priority } from "./priority.ts";
import { ReadyTimeHeap } from "./ready-time-heap.ts";
import { WorkQueue, type WorkQueueOptions } from "./queue.ts";

/**
 * A work queue that can also add an item later (`addAfter`); a later add of an item already waiting keeps the earlier time.
 *
 * @hideconstructor
 */
export class DelayingQueue<T = string> extends WorkQueue<T> {
  private readonly waiting = new ReadyTimeHeap<T>();
  /** The priority each waiting item will be added at: the highest it was delayed with. */
  private readonly waitingPriority = new Map<T, Priority>();
  private readonly retries: RetryMetrics;
  private timer: Timer | undefined;
  private timerDueAt = Infinity;

  constructor(options: WorkQueueOptions = {}) {
    super(options);
    this.retries = createRetryMetrics(this.metricsProvider, this.name);
  }

  /**
   * Adds `item` once `delayMs` has passed (at once if it is not positive). Counts as a retry. Without a priority,
   * an item being processed keeps the one it was handed out at; any other gets "normal".
   */
  addAfter(item: T, delayMs: number, options: AddOptions = {}): void {
    if (this.shuttingDown()) return;
    this.retries.retry();
    const priority = checkedPriority(options.priority ?? this.priorityInProcess(item) ?? "normal");
    if (!(delayMs > 0)) {
      this.add(item, { priority });
      return;
    }
    this.waiting.schedule(item, this.clock.monotonic() + delayMs);
    const earlier = this.waitingPriority.get(item);
    this.waitingPriority.set(item, earlier === undefined ? priority : higherOf(earlier, priority));
    this.armTimer();
  }

  override shutDown(): void {
    this.stopWaiting();
    super.shutDown();
  }

  override shutDownWithDrain(): Promise<void> {
    this.stopWaiting();
    return super.shutDownWithDrain();
  }

  private armTimer(): void {
    const next = this.waiting.nextReadyAt();
    if (next === undefined || next >= this.timerDueAt) return;
    this.disarmTimer();
    this.timerDueAt = next;
    this.timer = this.clock.setTimer(next - this.clock.monotonic(), () => this.addReady());
  }

  private addReady(): void {
    this.disarmTimer();
    for (const item of this.waiting.popReady(this.clock.monotonic())) {
      const priority = this.waitingPriority.get(item) ?? "normal";
      this.waitingPriority.delete(item);
      this.add(item, { priority });
    }
    // Also covers a timer that fired a little early: the item is still waiting, so the timer is armed again.
    this.armTimer();
  }

  private disarmTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }

  private stopWaiting(): void {
    this.disarmTimer();
    this.waiting.clear();
    this.waitingPriority.clear();
  }
}
