// What the reconcile runner reports, under controller-runtime's metric names.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export type ReconcileOutcome = "success" | "error" | "requeue_after" | "terminal_error";

export interface ReconcileMetrics {
  observe(controller: string, outcome: ReconcileOutcome, seconds: number): void;
  panicked(controller: string): void;
  setActiveWorkers(controller: string, count: number): void;
  setMaxConcurrentReconciles(controller: string, count: number): void;
}

export const noopReconcileMetrics: ReconcileMetrics = {
  observe: () => undefined,
  panicked: () => undefined,
  setActiveWorkers: () => undefined,
  setMaxConcurrentReconciles: () => undefined,
};

export function prometheusReconcileMetrics(registry: Registry): ReconcileMetrics {
  const labelNames = ["controller"] as const;
  const total = new Counter({
    name: "controller_runtime_reconcile_total",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"],
    registers: [registry],
  });
  const errors = new Counter({
    name: "controller_runtime_reconcile_errors_total",
    help: "Total number of reconciliation errors per controller",
    labelNames,
    registers: [registry],
  });
  const terminal = new Counter({
    name: "controller_runtime_terminal_reconcile_errors_total",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames,
    registers: [registry],
  });
  const panics = new Counter({
    name: "controller_runtime_reconcile_panics_total",
    help: "Total number of reconciliation panics (unexpected exceptions) per controller",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60],
    registers: [registry],
  });
  const active = new Gauge({
    name: "controller_runtime_active_workers",
    help: "Number of currently used workers per controller",
    labelNames,
    registers: [registry],
  });
  const max = new Gauge({
    name: "controller_runtime_max_concurrent_reconciles",
    help: "Maximum number of concurrent reconciles per controller",
    labelNames,
    registers: [registry],
  });
  return {
    observe(controller, outcome, seconds) {
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
