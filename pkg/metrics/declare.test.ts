import { describe, expect, test } from "bun:test";
import { Registry, register as globalRegistry } from "prom-client";
import { counter, gauge, heldGauge, histogram, talliedCounter, talliedHistogram } from "./declare.ts";

describe("metric declarations", () => {
  test("land on the given registry only, with their help and labels", async () => {
    const registry = new Registry();
    counter(registry, "test_things_total", "Things, by colour.", ["colour"]).inc({ colour: "red" }, 2);
    gauge(registry, "test_level", "A level.").set(3);
    const text = await registry.metrics();
    expect(text).toContain("# HELP test_things_total Things, by colour.\n# TYPE test_things_total counter\ntest_things_total{colour=\"red\"} 2");
    expect(text).toContain("# TYPE test_level gauge\ntest_level 3");
    expect(globalRegistry.getSingleMetric("test_things_total")).toBeUndefined();
  });

  test("a gauge's collector sets it from the state at scrape time", async () => {
    const registry = new Registry();
    let items = 1;
    gauge(registry, "test_items", "Items, by state.", ["state"], (itemsGauge) => itemsGauge.set({ state: "seen" }, items));
    items = 7;
    expect(await registry.metrics()).toContain('test_items{state="seen"} 7');
  });

  test("a tallied counter's series add up between reads and show the sums when read", async () => {
    const registry = new Registry();
    const changes = talliedCounter(registry, "test_changes_total", "Changes, by type.", ["type"]);
    const adds = changes({ type: "add" });
    const deletes = changes({ type: "delete" });
    adds.add();
    adds.add();
    deletes.add(3);
    expect(await registry.metrics()).toContain('test_changes_total{type="add"} 2\ntest_changes_total{type="delete"} 3');
    adds.add();
    const text = await registry.metrics();
    expect(text).toContain('test_changes_total{type="add"} 3');
    expect(text).toContain('test_changes_total{type="delete"} 3');
  });

  test("a held gauge's series show their last value when read; one never set is not shown", async () => {
    const registry = new Registry();
    const queued = heldGauge(registry, "test_queued", "Queued, by queue.", ["queue"]);
    const pods = queued({ queue: "pods" });
    queued({ queue: "idle" });
    pods.set(4);
    pods.set(2);
    expect(await registry.metrics()).toBe('# HELP test_queued Queued, by queue.\n# TYPE test_queued gauge\ntest_queued{queue="pods"} 2\n');
    pods.set(0);
    expect(await registry.metrics()).toContain('test_queued{queue="pods"} 0');
  });

  test("a histogram uses exactly the buckets given and leaves the caller's list unfrozen", async () => {
    const registry = new Registry();
    const buckets = [0.1, 1];
    histogram(registry, "test_wait_seconds", "Waits.", ["queue"], buckets).observe({ queue: "q" }, 0.5);
    const text = await registry.metrics();
    expect(text.match(/le="[^"]+"/g)).toEqual(['le="0.1"', 'le="1"', 'le="+Inf"']);
    expect(Object.isFrozen(buckets)).toBe(false);
  });

  test("a tallied histogram reads exactly as prom-client's Histogram fed the same values", async () => {
    const buckets = [0.005, 0.025, 0.1, 1];
    const values = [0.001, 0.005, 0.02, 0.3, 7, 0.1, 0.0049];
    const reference = new Registry();
    const real = histogram(reference, "test_request_seconds", "Requests, by verb.", ["verb", "host"], buckets);
    const registry = new Registry();
    const tallied = talliedHistogram(registry, "test_request_seconds", "Requests, by verb.", ["verb", "host"], buckets);
    // prom-client lists series in the order of their first observation, a tallied histogram in the order they were taken.
    const puts = tallied({ verb: "PUT", host: "a" });
    const gets = tallied({ verb: "GET", host: "a" });
    tallied({ verb: "DELETE", host: "a" });
    expect(tallied({ verb: "GET", host: "a" })).toBe(gets);
    values.forEach((value, i) => {
      const verb = i % 3 === 0 ? "PUT" : "GET";
      real.observe({ verb, host: "a" }, value);
      (verb === "PUT" ? puts : gets).observe(value);
    });
    expect(await registry.metrics()).toBe(await reference.metrics());
    expect(await registry.metrics()).not.toContain("DELETE");
    // Read as objects (get()), the same lines with their labels in one object; prom-client adds an empty exemplar to each.
    const withoutExemplars = (families: { values: object[] }[]): unknown[] =>
      families.map((f) => ({ ...f, values: f.values.map(({ exemplar: _, ...line }: { exemplar?: unknown }) => line) }));
    const read: unknown[] = await registry.getMetricsAsJSON();
    expect(read).toEqual(withoutExemplars(await reference.getMetricsAsJSON()));
    registry.resetMetrics();
    reference.resetMetrics();
    expect(await registry.metrics()).toBe(await reference.metrics());
  });
});
