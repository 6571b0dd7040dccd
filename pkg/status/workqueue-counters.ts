// The workqueue counters the status page shows next to each reconcile loop, read from the
// workqueue_* metrics the queues already report: one source of truth with /metrics, and no
// second set of counters in the queues.
import type { Registry } from "prom-client";

export interface WorkqueueCounters {
  adds: number;
  retries: number;
}

/** By queue name; a queue that reports no metrics (unnamed, or a no-op provider) is absent. */
export async function workqueueCounters(registry: Registry): Promise<Map<string, WorkqueueCounters>> {
  const [adds, retries] = await Promise.all([byQueue(registry, "workqueue_adds_total"), byQueue(registry, "workqueue_retries_total")]);
  const counters = new Map<string, WorkqueueCounters>();
  for (const [name, value] of adds) counters.set(name, { adds: value, retries: retries.get(name) ?? 0 });
  return counters;
}

async function byQueue(registry: Registry, metric: string): Promise<Map<string, number>> {
  const values = new Map<string, number>();
  const family = registry.getSingleMetric(metric);
  if (!family) return values;
  for (const { labels, value } of (await family.get()).values) {
    if (typeof labels.name === "string") values.set(labels.name, value);
  }
  return values;
}
