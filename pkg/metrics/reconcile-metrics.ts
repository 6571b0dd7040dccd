// What the reconcile runners report, under controller-runtime's metric names: a reconcile
// observer on a prom-client registry, labelled by the runner's name.
import type { Registry } from "prom-client";
import type { ReconcileObserver } from "../controller/reconcile-observer.ts";
import { counter, gauge, histogram } from "./declare.ts";

// controller-runtime's buckets for controller_runtime_reconcile_time_seconds.
const durationBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10,
  15, 20, 25, 30, 40, 50, 60,
];

/** Registers the seven `controller_runtime_*` metrics on `registry`; create one per registry. */
export function prometheusReconcileMetrics(registry: Registry): ReconcileObserver {
  const labelNames = ["controller"] as const;
  const total = counter(registry, "controller_runtime_reconcile_total", "Reconciliations finished, by controller and result (success, error, requeue, requeue_after).", ["controller", "result"]);
  const errors = counter(registry, "controller_runtime_reconcile_errors_total", "Reconciliations that failed, terminally or to be retried, by controller.", labelNames);
  const terminal = counter(registry, "controller_runtime_terminal_reconcile_errors_total", "Reconciliations that failed with a TerminalError and are not retried, by controller.", labelNames);
  const panics = counter(registry, "controller_runtime_reconcile_panics_total", "Reconciliations that threw a programming error (a panic in Go terms), by controller.", labelNames);
  const duration = histogram(registry, "controller_runtime_reconcile_time_seconds", "Seconds one reconciliation took, by controller.", labelNames, durationBuckets);
  const active = gauge(registry, "controller_runtime_active_workers", "Workers reconciling right now, by controller.", labelNames);
  const max = gauge(registry, "controller_runtime_max_concurrent_reconciles", "Workers a controller runs at most, by controller.", labelNames);
  return {
    finished(controller, _key, outcome, seconds) {
      total.inc({ controller, result: outcome === "terminal_error" ? "error" : outcome });
      if (outcome === "error" || outcome === "terminal_error") errors.inc({ controller });
      if (outcome === "terminal_error") terminal.inc({ controller });
      duration.observe({ controller }, seconds);
    },
    panicked: (controller) => panics.inc({ controller }),
    setActiveWorkers: (controller, count) => active.set({ controller }, count),
    setMaxConcurrentReconciles: (controller, count) => max.set({ controller }, count),
  };
}
