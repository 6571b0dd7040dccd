// The process's metrics registry: one prom-client Registry that every component registers
// on, served at /metrics. Process metrics (CPU, memory, file descriptors) come with it.
import { Registry, collectDefaultMetrics } from "prom-client";

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
