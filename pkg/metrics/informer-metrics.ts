// The informer metrics of component-base (metrics/prometheus/clientgo/fifo) on a prom-client
// registry: the names, labels and buckets kube-controller-manager serves since 1.35.
import type { Registry } from "prom-client";
import type { Histogram, InformerIdentity, InformerMetricsProvider, SettableGauge } from "../informer/metrics.ts";
import { heldGauge, talliedHistogram } from "./declare.ts";

const informerLabels = ["name", "group", "version", "resource"] as const;
type InformerLabel = (typeof informerLabels)[number];

// component-base's buckets for informer_processing_latency_seconds.
const processingLatencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function labelsOf({ name, resource }: InformerIdentity): Record<InformerLabel, string> {
  return { name, group: resource.group, version: resource.version, resource: resource.resource };
}

/** Registers the three `informer_*` metrics on `registry`; create one per registry. */
export class PrometheusInformerMetricsProvider implements InformerMetricsProvider {
  readonly newQueuedItemMetric: (id: InformerIdentity) => SettableGauge;
  readonly newProcessingLatencyMetric: (id: InformerIdentity) => Histogram;
  readonly newStoreResourceVersionMetric: (id: InformerIdentity) => SettableGauge;

  constructor(registry: Registry) {
    const queued = heldGauge(registry, "informer_queued_items", "Changes waiting in an informer's queue, by informer name and resource.", informerLabels);
    const latency = talliedHistogram(
      registry,
      "informer_processing_latency_seconds",
      "Seconds an informer spent on one change taken from its queue (updating its cache, telling its handlers), by informer name and resource.",
      informerLabels,
      processingLatencyBuckets,
    );
    const resourceVersion = heldGauge(registry, "informer_store_resource_version", "The resourceVersion of an informer's cache (its last 15 digits), by informer name and resource.", informerLabels);
    this.newQueuedItemMetric = (id) => queued(labelsOf(id));
    this.newProcessingLatencyMetric = (id) => latency(labelsOf(id));
    this.newStoreResourceVersionMetric = (id) => resourceVersion(labelsOf(id));
  }
}
