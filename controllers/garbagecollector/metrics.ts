// What the garbage collector reports at /metrics, besides its two workqueues' workqueue_* series.
// The sync-error counter keeps kube-controller-manager's name.
import { Counter, Gauge, type Registry } from "prom-client";
import type { PropagationPolicy } from "./object-api.ts";

export type GraphChangeType = "add" | "update" | "delete" | "virtual-delete";
export type AttemptQueue = "attempt_to_delete" | "attempt_to_orphan";

export interface GarbageCollectorMetrics {
  graphChanged(type: GraphChangeType): void;
  attempted(queue: AttemptQueue, outcome: "success" | "error"): void;
  deleted(policy: PropagationPolicy): void;
  referencesRemoved(count: number): void;
  resourcesSyncFailed(): void;
}

/** Read when /metrics is scraped. */
export interface GraphStatistics {
  nodeCounts(): { observed: number; virtual: number };
  monitoredResources(): number;
}

export const noopGarbageCollectorMetrics: GarbageCollectorMetrics = {
  graphChanged: () => undefined,
  attempted: () => undefined,
  deleted: () => undefined,
  referencesRemoved: () => undefined,
  resourcesSyncFailed: () => undefined,
};

export function prometheusGarbageCollectorMetrics(registry: Registry, statistics: GraphStatistics): GarbageCollectorMetrics {
  const registers = [registry];
  new Gauge({
    name: "garbagecollector_graph_nodes",
    help: "Objects in the garbage collector's dependency graph; virtual nodes are owners referenced but not observed yet.",
    labelNames: ["state"],
    registers,
    collect() {
      const counts = statistics.nodeCounts();
      this.set({ state: "observed" }, counts.observed);
      this.set({ state: "virtual" }, counts.virtual);
    },
  });
  new Gauge({
    name: "garbagecollector_monitored_resources",
    help: "Resources the garbage collector lists and watches.",
    registers,
    collect() {
      this.set(statistics.monitoredResources());
    },
  });
  const graphChanges = new Counter({
    name: "garbagecollector_graph_changes_total",
    help: "Changes applied to the dependency graph, by type.",
    labelNames: ["type"],
    registers,
  });
  const attempts = new Counter({
    name: "garbagecollector_attempts_total",
    help: "Items processed from the attempt_to_delete and attempt_to_orphan queues, by outcome.",
    labelNames: ["queue", "outcome"],
    registers,
  });
  const deletions = new Counter({
    name: "garbagecollector_deletions_total",
    help: "Objects the garbage collector deleted, by propagation policy.",
    labelNames: ["propagation_policy"],
    registers,
  });
  const referencesRemoved = new Counter({
    name: "garbagecollector_owner_references_removed_total",
    help: "ownerReferences removed from dependents (dangling owners, owners deleting in the foreground, orphaning).",
    registers,
  });
  const syncErrors = new Counter({
    name: "garbagecollector_controller_resources_sync_error_total",
    help: "Number of garbage collector resources sync errors",
    registers,
  });
  return {
    graphChanged: (type) => graphChanges.inc({ type }),
    attempted: (queue, outcome) => attempts.inc({ queue, outcome }),
    deleted: (policy) => deletions.inc({ propagation_policy: policy }),
    referencesRemoved: (count) => referencesRemoved.inc(count),
    resourcesSyncFailed: () => syncErrors.inc(),
  };
}
