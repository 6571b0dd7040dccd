// What an informer reports about its queue and its cache (client-go's InformerMetricsProvider):
// a provider builds the metrics of one informer from its identity, and the queue and the cache
// feed them. The informer knows no metrics library; pkg/metrics implements the provider.
import type { GroupVersionResource } from "../kube/gvr.ts";
import { ignoringCalls } from "../noop/ignoring-calls.ts";

/** A gauge set to a value. */
export interface SettableGauge {
  /** Sets the current value. */
  set(value: number): void;
}

/** A histogram. */
export interface Histogram {
  /** Records one value, in seconds. */
  observe(value: number): void;
}

/** Who reports: the factory's name (the process, e.g. "kube-loom") and the informer's resource. */
export interface InformerIdentity {
  name: string;
  resource: GroupVersionResource;
}

export interface InformerMetricsProvider {
  /** Entries waiting in the informer's queue. */
  newQueuedItemMetric(id: InformerIdentity): SettableGauge;
  /** Seconds spent on one entry taken from the queue: the cache updated and the handlers told. */
  newProcessingLatencyMetric(id: InformerIdentity): Histogram;
  /** The cache's resourceVersion, as a number (see resourceVersionForMetrics). */
  newStoreResourceVersionMetric(id: InformerIdentity): SettableGauge;
}

/** One informer's metrics, built once by its factory. */
export interface InformerMetrics {
  /** informer_queued_items. */
  queuedItems: SettableGauge;
  /** informer_processing_latency_seconds. */
  processingLatency: Histogram;
  /** informer_store_resource_version. */
  storeResourceVersion: SettableGauge;
}

const ignored: SettableGauge & Histogram = ignoringCalls(["set", "observe"]);

export const noInformerMetrics: InformerMetrics = { queuedItems: ignored, processingLatency: ignored, storeResourceVersion: ignored };

export function informerMetricsFor(provider: InformerMetricsProvider, id: InformerIdentity): InformerMetrics {
  return {
    queuedItems: provider.newQueuedItemMetric(id),
    processingLatency: provider.newProcessingLatencyMetric(id),
    storeResourceVersion: provider.newStoreResourceVersionMetric(id),
  };
}

/**
 * A resourceVersion as a gauge value: its last 15 digits, so that a float64 holds it exactly
 * (client-go's rule); "" is 0; undefined when it is not a decimal number (never from etcd).
 */
export function resourceVersionForMetrics(resourceVersion: string): number | undefined {
  const digits = resourceVersion.slice(-15);
  if (digits === "") return 0;
  return /^[0-9]+$/.test(digits) ? Number(digits) : undefined;
}
