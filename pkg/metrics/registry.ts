// The process's metrics registry: one prom-client Registry that every component registers
// on, served at /metrics. Process metrics (CPU, memory, file descriptors) come with it.
import { Registry, collectDefaultMetrics } from "prom-client";

// prom-client exports these gauges with a counter's "_total" suffix, which `promtool check
// metrics` rejects; the handle and request counts they carry are Node internals anyway.
const misnamedDefaultMetrics = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];

const EVENT_LOOP_SAMPLE_MS = 1000;

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  // The event-loop lag histogram samples with a timer, and every wake-up of an idle Bun process
  // costs about 0.1 ms: at prom-client's 10 ms, or even at 100 ms, the timer alone used more CPU
  // than kube-controller-manager does idle. Once a second still catches every stall of a second
  // or more, the ones that put a lease renewal at risk.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  for (const name of misnamedDefaultMetrics) registry.removeSingleMetric(name);
  return registry;
}
