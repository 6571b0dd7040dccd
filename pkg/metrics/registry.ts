// The process's metrics registry: one prom-client Registry that every component registers
// on, served at /metrics. Process metrics (CPU, memory, file descriptors) come with it.
import { Registry, collectDefaultMetrics } from "prom-client";

// prom-client exports these gauges with a counter's "_total" suffix, which `promtool check
// metrics` rejects; the handle and request counts they carry are Node internals anyway.
const misnamedDefaultMetrics = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];

const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  // The event-loop lag histogram samples with a timer: prom-client's 10 ms default woke an idle
  // process 100 times a second (half of its idle CPU); 100 ms still sees any stall long enough to
  // matter to a lease renewal.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  for (const name of misnamedDefaultMetrics) registry.removeSingleMetric(name);
  return registry;
}
