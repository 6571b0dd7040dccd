// The workqueue metrics of component-base (metrics/prometheus/workqueue), on a prom-client registry: same names,
// buckets and `name` label, so dashboards written for kube-controller-manager work unchanged.
import { type Registry, exponentialBuckets } from "prom-client";
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  WorkqueueMetricsProvider,
} from "../workqueue/metrics.ts";
import { gauge, talliedCounter, talliedHistogram } from "./declare.ts";

// component-base's ExponentialBuckets(10e-9, 10, 10): 1e-8 s … 10 s.
const durationBuckets = exponentialBuckets(10e-9, 10, 10);
const queueLabel = ["name"] as const;

/** One metric family, handing each queue the series labelled with its name. */
type PerQueue<Metric> = (name: string) => Metric;
function perQueue<Metric>(family: { labels(labels: { name: string }): Metric }): PerQueue<Metric> {
  return (name) => family.labels({ name });
}

/** A counter counted once per item added or retried: tallied, so no label hashing per item. */
function countedPerQueue(registry: Registry, name: string, help: string): PerQueue<CounterMetric> {
  const series = talliedCounter(registry, name, help, queueLabel);
  return (queue) => {
    const tally = series({ name: queue });
    return { inc: () => tally.add() };
  };
}

/** Registers the seven `workqueue_*` metrics on `registry`; create one per registry. */
export class PrometheusWorkqueueMetricsProvider implements WorkqueueMetricsProvider {
  readonly newDepthMetric: PerQueue<GaugeMetric>;
  readonly newAddsMetric: PerQueue<CounterMetric>;
  readonly newLatencyMetric: PerQueue<HistogramMetric>;
  readonly newWorkDurationMetric: PerQueue<HistogramMetric>;
  readonly newUnfinishedWorkSecondsMetric: PerQueue<SettableGaugeMetric>;
  readonly newLongestRunningProcessorSecondsMetric: PerQueue<SettableGaugeMetric>;
  readonly newRetriesMetric: PerQueue<CounterMetric>;

  constructor(registry: Registry) {
    this.newDepthMetric = perQueue(gauge(registry, "workqueue_depth", "Items waiting in the queue, by queue name.", queueLabel));
    this.newAddsMetric = countedPerQueue(registry, "workqueue_adds_total", "Items added to the queue, by queue name.");
    // Observed per item taken and per item done: tallied, so no label hashing per item.
    const queueDuration = talliedHistogram(registry, "workqueue_queue_duration_seconds", "Seconds an item waited in the queue before a worker took it, by queue name.", queueLabel, durationBuckets);
    this.newLatencyMetric = (queue) => queueDuration({ name: queue });
    const workDuration = talliedHistogram(registry, "workqueue_work_duration_seconds", "Seconds a worker spent on an item, from taking it to marking it done, by queue name.", queueLabel, durationBuckets);
    this.newWorkDurationMetric = (queue) => workDuration({ name: queue });
    this.newUnfinishedWorkSecondsMetric = perQueue(
      gauge(
        registry,
        "workqueue_unfinished_work_seconds",
        "Seconds of work in progress and not yet counted in workqueue_work_duration_seconds (the ages of the items being processed, summed), " +
          "by queue name. Growing by N every second means N workers are stuck.",
        queueLabel,
      ),
    );
    this.newLongestRunningProcessorSecondsMetric = perQueue(
      gauge(registry, "workqueue_longest_running_processor_seconds", "Seconds the item processed longest so far has been in a worker's hands, by queue name.", queueLabel),
    );
    this.newRetriesMetric = countedPerQueue(registry, "workqueue_retries_total", "Items put back to be retried later (delayed or rate-limited), by queue name.");
  }
}
