import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { FakeClock } from "../clock/fake-clock.ts";
import { PrometheusWorkqueueMetricsProvider } from "../metrics/workqueue-metrics.ts";
import { DelayingQueue } from "./delaying-queue.ts";
import type { WorkqueueMetricsProvider } from "./metrics.ts";

/** Keeps each metric as a plain number (gauges, counters) or a list of observations (histograms). */
class RecordingProvider implements WorkqueueMetricsProvider {
  readonly values = new Map<string, number>();
  readonly observations = new Map<string, number[]>();

  private value(key: string) {
    const change = (delta: number) => this.values.set(key, (this.values.get(key) ?? 0) + delta);
    return { inc: () => change(1), dec: () => change(-1), set: (value: number) => this.values.set(key, value) };
  }

  private histogram(key: string) {
    const observed: number[] = [];
    this.observations.set(key, observed);
    return { observe: (value: number) => observed.push(value) };
  }

  newDepthMetric = (name: string) => this.value(`depth/${name}`);
  newAddsMetric = (name: string) => this.value(`adds/${name}`);
  newLatencyMetric = (name: string) => this.histogram(`latency/${name}`);
  newWorkDurationMetric = (name: string) => this.histogram(`workDuration/${name}`);
  newUnfinishedWorkSecondsMetric = (name: string) => this.value(`unfinished/${name}`);
  newLongestRunningProcessorSecondsMetric = (name: string) => this.value(`longest/${name}`);
  newRetriesMetric = (name: string) => this.value(`retries/${name}`);
}

function newQueue(name = "q") {
  const clock = new FakeClock();
  const provider = new RecordingProvider();
  const queue = new DelayingQueue({ name, clock, metricsProvider: provider });
  return { clock, provider, queue };
}

describe("workqueue metrics", () => {
  test("depth, adds, queue latency, work duration and retries reach the provider", async () => {
    const { clock, provider, queue } = newQueue();
    queue.add("a");
    queue.add("a");
    queue.add("b");
    expect(provider.values.get("depth/q")).toBe(2);
    expect(provider.values.get("adds/q")).toBe(2);

    await clock.advance(250);
    await queue.get();
    expect(provider.values.get("depth/q")).toBe(1);
    expect(provider.observations.get("latency/q")).toEqual([0.25]);

    await clock.advance(100);
    queue.done("a");
    expect(provider.observations.get("workDuration/q")).toEqual([0.1]);

    queue.addAfter("c", 10);
    queue.addAfter("c", 20);
    queue.addAfter("d", 0);
    expect(provider.values.get("retries/q")).toBe(3);
    expect(provider.values.get("adds/q")).toBe(3);
  });

  test("unfinished work and the longest-running processor are updated every 500 ms, only while processing", async () => {
    const { clock, provider, queue } = newQueue();
    queue.add("a");
    queue.add("b");
    expect(clock.waiters).toBe(0);
    await queue.get();
    await clock.advance(500);
    expect(provider.values.get("unfinished/q")).toBeCloseTo(0.5);
    expect(provider.values.get("longest/q")).toBeCloseTo(0.5);

    await clock.advance(200);
    await queue.get();
    await clock.advance(300);
    expect(provider.values.get("unfinished/q")).toBeCloseTo(1.3);
    expect(provider.values.get("longest/q")).toBeCloseTo(1.0);

    queue.done("a");
    queue.done("b");
    expect(provider.values.get("unfinished/q")).toBe(0);
    expect(provider.values.get("longest/q")).toBe(0);
    expect(clock.waiters).toBe(0);
  });

  test("an unnamed queue emits no metrics", async () => {
    const { provider, queue } = newQueue("");
    queue.add("a");
    await queue.get();
    queue.done("a");
    queue.addAfter("a", 10);
    expect(provider.values.size + provider.observations.size).toBe(0);
  });

  test("the prom-client provider exposes client-go's metric names with the queue name label", async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const queue = new DelayingQueue({ name: "replicaset", clock, metricsProvider: new PrometheusWorkqueueMetricsProvider(registry) });
    queue.add("a");
    await queue.get();
    queue.done("a");
    queue.addAfter("a", 10);

    const exposition = await registry.metrics();
    for (const metric of [
      "workqueue_depth",
      "workqueue_adds_total",
      "workqueue_queue_duration_seconds",
      "workqueue_work_duration_seconds",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
      "workqueue_retries_total",
    ]) {
      expect(exposition).toContain(`# TYPE ${metric} `);
    }
    expect(exposition).toContain('workqueue_adds_total{name="replicaset"} 1');
    expect(exposition).toContain('workqueue_retries_total{name="replicaset"} 1');
    expect(exposition).toContain('workqueue_queue_duration_seconds_bucket{le="1e-8",name="replicaset"} 1');
    expect(exposition).toContain('workqueue_queue_duration_seconds_bucket{le="10",name="replicaset"} 1');
  });
});
