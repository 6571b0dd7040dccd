import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { FakeClock } from "../clock/fake-clock.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { resources } from "../kube/gvr.ts";
import { eventually } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { obj } from "../../test/support/objects.ts";
import { PrometheusInformerMetricsProvider } from "./informer-metrics.ts";

/** The values of the samples of `metric` whose labels include all of `labels`. */
function sample(exposition: string, metric: string, labels: string[]): string[] {
  return exposition
    .split("\n")
    .filter((line) => line.startsWith(`${metric}{`) && labels.every((label) => line.includes(label)))
    .map((line) => line.slice(line.lastIndexOf(" ") + 1));
}

describe("informer metrics", () => {
  test("a factory's informers report client-go's informer_* metrics, one informer per resource", async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const pods = new FakeListerWatcher([obj("ns/a"), obj("ns/b")]);
    const factory = new SharedInformerFactory({
      listerWatcherFor: () => pods,
      defaultResyncMs: 0,
      clock,
      metrics: { provider: new PrometheusInformerMetricsProvider(registry), name: "kube-loom" },
    });
    const { informer } = factory.forResource(resources.pods);
    // Same resource, other view: it must not write the same series.
    factory.forMetadata(resources.pods);
    const stop = new AbortController();
    factory.start(stop.signal);
    await eventually(() => factory.list().every((i) => i.hasSynced()), "synced");
    pods.create(obj("ns/c"));
    await eventually(() => informer.getIndexer().lastStoreSyncResourceVersion() === pods.currentResourceVersion, "event applied");

    const exposition = await registry.metrics();
    expect(exposition).toContain("# TYPE informer_queued_items gauge");
    expect(exposition).toContain("# TYPE informer_processing_latency_seconds histogram");
    expect(exposition).toContain("# TYPE informer_store_resource_version gauge");
    const podLabels = ['name="kube-loom"', 'group=""', 'version="v1"', 'resource="pods"'];
    expect(sample(exposition, "informer_store_resource_version", podLabels)).toEqual([pods.currentResourceVersion]);
    expect(sample(exposition, "informer_queued_items", podLabels)).toEqual(["0"]);
    // The list and the event: two entries processed, each well within the first bucket on a fake clock.
    expect(sample(exposition, "informer_processing_latency_seconds_count", podLabels)).toEqual(["2"]);
    expect(sample(exposition, "informer_processing_latency_seconds_bucket", [...podLabels, 'le="0.001"'])).toEqual(["2"]);
    const buckets = exposition.match(/informer_processing_latency_seconds_bucket\{le="([^"]+)"/g)?.map((b) => b.split('"')[1]);
    expect(buckets).toEqual(["0.001", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]);
    stop.abort();
    await factory.shutdown();
  });
});
