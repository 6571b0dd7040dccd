// Workqueue metrics as client-go defines them (util/workqueue/metrics.go): a provider builds one metric per queue
// name, and the queue feeds them through the hooks below. Unnamed queues emit nothing.
import type { Clock, Timer } from "../clock/clock.ts";
import { ignoringCalls } from "../noop/ignoring-calls.ts";

/** A gauge that goes up and down by one. */
export interface GaugeMetric {
  /** Adds one. */
  inc(): void;
  /** Subtracts one. */
  dec(): void;
}

/** A gauge set to a value. */
export interface SettableGaugeMetric {
  /** Sets the current value. */
  set(value: number): void;
}

/** A counter. */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}

/** A histogram. */
export interface HistogramMetric {
  /** Records one value (seconds, for the latency metrics). */
  observe(value: number): void;
}

/**
 * Makes the workqueue_* metrics of each named queue, as client-go's MetricsProvider does (each method gets the
 * queue's name). `ControllerContext.workqueueMetrics` is the process's Prometheus one.
 */
export interface WorkqueueMetricsProvider {
  /** Items waiting in the queue. */
  newDepthMetric(name: string): GaugeMetric;
  /** Adds that made an item dirty. */
  newAddsMetric(name: string): CounterMetric;
  /** Seconds from add to get. */
  newLatencyMetric(name: string): HistogramMetric;
  /** Seconds from get to done. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** Sum of the ages of all items being processed, in seconds. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** Age of the oldest item being processed, in seconds. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** Delayed (and rate-limited) adds. */
  newRetriesMetric(name: string): CounterMetric;
}

const noopMetric: GaugeMetric & SettableGaugeMetric & CounterMetric & HistogramMetric = ignoringCalls(["inc", "dec", "set", "observe"]);

export const noopWorkqueueMetricsProvider: WorkqueueMetricsProvider = ignoringCalls(
  [
    "newDepthMetric",
    "newAddsMetric",
    "newLatencyMetric",
    "newWorkDurationMetric",
    "newUnfinishedWorkSecondsMetric",
    "newLongestRunningProcessorSecondsMetric",
    "newRetriesMetric",
  ],
  noopMetric,
);

/** How often the in-progress gauges are recomputed, as client-go's `defaultUnfinishedWorkUpdatePeriod`. */
export const unfinishedWorkUpdatePeriodMs = 500;

/** What the queue reports; the queue guarantees a key is between `get` and `done` at most once at a time. */
export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  /** Stops the periodic update for good (the queue is shutting down). */
  stop(): void;
}

export interface RetryMetrics {
  retry(): void;
}

const noQueueMetrics: QueueMetrics<unknown> = ignoringCalls(["add", "get", "done", "stop"]);
const noRetryMetrics: RetryMetrics = ignoringCalls(["retry"]);

// Skipping the no-op provider too spares idle queues the bookkeeping and the update timer.
const emitsMetrics = (provider: WorkqueueMetricsProvider, name: string) =>
  name !== "" && provider !== noopWorkqueueMetricsProvider;

export function createQueueMetrics<T>(provider: WorkqueueMetricsProvider, name: string, clock: Clock): QueueMetrics<T> {
  return emitsMetrics(provider, name) ? new ProviderQueueMetrics<T>(provider, name, clock) : noQueueMetrics;
}

export function createRetryMetrics(provider: WorkqueueMetricsProvider, name: string): RetryMetrics {
  if (!emitsMetrics(provider, name)) return noRetryMetrics;
  const retries = provider.newRetriesMetric(name);
  return { retry: () => retries.inc() };
}

class ProviderQueueMetrics<T> implements QueueMetrics<T> {
  private readonly depth: GaugeMetric;
  private readonly adds: CounterMetric;
  private readonly latency: HistogramMetric;
  private readonly workDuration: HistogramMetric;
  private readonly unfinishedWorkSeconds: SettableGaugeMetric;
  private readonly longestRunningProcessor: SettableGaugeMetric;
  private readonly addTimes = new Map<T, number>();
  private readonly processingStartTimes = new Map<T, number>();
  private updateTimer: Timer | undefined;
  private stopped = false;

  constructor(
    provider: WorkqueueMetricsProvider,
    name: string,
    private readonly clock: Clock,
  ) {
    this.depth = provider.newDepthMetric(name);
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  add(item: T): void {
    this.adds.inc();
    this.depth.inc();
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.monotonic());
  }

  get(item: T): void {
    this.depth.dec();
    this.processingStartTimes.set(item, this.clock.monotonic());
    const addedAt = this.addTimes.get(item);
    if (addedAt !== undefined) {
      this.latency.observe(this.secondsSince(addedAt));
      this.addTimes.delete(item);
    }
    this.startUpdating();
  }

  done(item: T): void {
    const startedAt = this.processingStartTimes.get(item);
    if (startedAt === undefined) return;
    this.workDuration.observe(this.secondsSince(startedAt));
    this.processingStartTimes.delete(item);
    if (this.processingStartTimes.size === 0) this.stopUpdating();
  }

  stop(): void {
    this.stopped = true;
    this.updateTimer?.cancel();
    this.updateTimer = undefined;
  }

  // client-go ticks forever; ticking only while something is processing keeps idle queues free of timers,
  // and one last update on the way out brings the gauges back to zero just as its next tick would.
  private startUpdating(): void {
    if (this.updateTimer || this.stopped) return;
    const tick = () => {
      this.updateUnfinishedWork();
      this.updateTimer = this.clock.setTimer(unfinishedWorkUpdatePeriodMs, tick);
    };
    this.updateTimer = this.clock.setTimer(unfinishedWorkUpdatePeriodMs, tick);
  }

  private stopUpdating(): void {
    if (!this.updateTimer) return;
    this.updateTimer.cancel();
    this.updateTimer = undefined;
    this.updateUnfinishedWork();
  }

  private updateUnfinishedWork(): void {
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.processingStartTimes.values()) {
      const age = this.secondsSince(startedAt);
      total += age;
      oldest = Math.max(oldest, age);
    }
    this.unfinishedWorkSeconds.set(total);
    this.longestRunningProcessor.set(oldest);
  }

  private secondsSince(start: number): number {
    return (this.clock.monotonic() - start) / 1000;
  }
}
