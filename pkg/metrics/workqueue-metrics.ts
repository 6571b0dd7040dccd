// The workqueue metrics of component-base (metrics/prometheus/workqueue), on a prom-client registry: same names, help,
// buckets and `name` label, so dashboards written for kube-controller-manager work unchanged.
import { Counter, Gauge, Histogram, type Registry, exponentialBuckets } from "prom-client";
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  WorkqueueMetricsProvider,
} from "../workqueue/metrics.ts";

// component-base's ExponentialBuckets(10e-9, 10, 10): 1e-8 s … 10 s.
const durationBuckets = exponentialBuckets(10e-9, 10, 10);

/** Registers the seven `workqueue_*` metrics on `registry`; create one per registry. */
export class PrometheusWorkqueueMetricsProvider implements WorkqueueMetricsProvider {
  private readonly depth: Gauge<"name">;
  private readonly adds: Counter<"name">;
  private readonly latency: Histogram<"name">;
  private readonly workDuration: Histogram<"name">;
  private readonly unfinishedWork: Gauge<"name">;
  private readonly longestRunningProcessor: Gauge<"name">;
  private readonly retries: Counter<"name">;

  constructor(registry: Registry) {
    const common = { labelNames: ["name"] as const, registers: [registry] };
    this.depth = new Gauge({ ...common, name: "workqueue_depth", help: "Current depth of workqueue" });
    this.adds = new Counter({
      ...common,
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
    });
    this.latency = new Histogram({
      ...common,
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested.",
      buckets: durationBuckets,
    });
    this.workDuration = new Histogram({
      ...common,
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes.",
      buckets: durationBuckets,
    });
    this.unfinishedWork = new Gauge({
      ...common,
      name: "workqueue_unfinished_work_seconds",
      help:
        "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
        "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate " +
        "at which this increases.",
    });
    this.longestRunningProcessor = new Gauge({
      ...common,
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
    });
    this.retries = new Counter({
      ...common,
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
    });
  }

  newDepthMetric(name: string): GaugeMetric {
    return this.depth.labels({ name });
  }

  newAddsMetric(name: string): CounterMetric {
    return this.adds.labels({ name });
  }

  newLatencyMetric(name: string): HistogramMetric {
    return this.latency.labels({ name });
  }

  newWorkDurationMetric(name: string): HistogramMetric {
    return this.workDuration.labels({ name });
  }

  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    return this.unfinishedWork.labels({ name });
  }

  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    return this.longestRunningProcessor.labels({ name });
  }

  newRetriesMetric(name: string): CounterMetric {
    return this.retries.labels({ name });
  }
}
