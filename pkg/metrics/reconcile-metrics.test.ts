import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { prometheusReconcileMetrics } from "./reconcile-metrics.ts";

test("controller-runtime's reconcile metrics: a terminal error counts as result=error and in both error counters", async () => {
  const registry = new Registry();
  const metrics = prometheusReconcileMetrics(registry);
  metrics.setMaxConcurrentReconciles("rs", 5);
  metrics.setActiveWorkers("rs", 2);
  metrics.finished("rs", "ns/a", "success", 0.02);
  metrics.finished("rs", "ns/b", "error", 1.5, new Error("conflict"));
  metrics.finished("rs", "ns/c", "terminal_error", 7, new Error("invalid"));
  metrics.finished("rs", "ns/d", "requeue_after", 0.001);
  metrics.panicked("rs");
  const text = await registry.metrics();
  for (const line of [
    'controller_runtime_reconcile_total{controller="rs",result="success"} 1',
    'controller_runtime_reconcile_total{controller="rs",result="error"} 2',
    'controller_runtime_reconcile_total{controller="rs",result="requeue_after"} 1',
    'controller_runtime_reconcile_errors_total{controller="rs"} 2',
    'controller_runtime_terminal_reconcile_errors_total{controller="rs"} 1',
    'controller_runtime_reconcile_panics_total{controller="rs"} 1',
    'controller_runtime_reconcile_time_seconds_count{controller="rs"} 4',
    'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="rs"} 1',
    'controller_runtime_reconcile_time_seconds_bucket{le="60",controller="rs"} 4',
    'controller_runtime_active_workers{controller="rs"} 2',
    'controller_runtime_max_concurrent_reconciles{controller="rs"} 5',
  ]) {
    expect(text).toContain(`${line}\n`);
  }
});
