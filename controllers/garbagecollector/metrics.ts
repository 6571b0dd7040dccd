// What the garbage collector reports at /metrics, besides its two workqueues' workqueue_* series.
// The sync-error counter keeps kube-controller-manager's name.
import type { Registry } from "prom-client";
import { type Tally, counter, gauge, talliedCounter } from "../../pkg/metrics/declare.ts";
import { ignoringCalls } from "../../pkg/noop/ignoring-calls.ts";
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

export const noopGarbageCollectorMetrics: GarbageCollectorMetrics = ignoringCalls(["graphChanged", "attempted", "deleted", "referencesRemoved", "resourcesSyncFailed"]);

export function prometheusGarbageCollectorMetrics(registry: Registry, statistics: GraphStatistics): GarbageCollectorMetrics {
  gauge(registry, "garbagecollector_graph_nodes", "Objects in the garbage collector's dependency graph; virtual nodes are owners referenced but not observed yet.", ["state"], (nodes) => {
    const counts = statistics.nodeCounts();
    nodes.set({ state: "observed" }, counts.observed);
    nodes.set({ state: "virtual" }, counts.virtual);
  });
  gauge(registry, "garbagecollector_monitored_resources", "Resources the garbage collector lists and watches.", [], (monitored) => monitored.set(statistics.monitoredResources()));
  // One change per informer event: tallied, not labelled each time.
  const graphChangesOfType = talliedCounter(registry, "garbagecollector_graph_changes_total", "Changes applied to the dependency graph, by type.", ["type"]);
  const graphChanges: Record<GraphChangeType, Tally> = {
    add: graphChangesOfType({ type: "add" }),
    update: graphChangesOfType({ type: "update" }),
    delete: graphChangesOfType({ type: "delete" }),
    "virtual-delete": graphChangesOfType({ type: "virtual-delete" }),
  };
  const attempts = counter(registry, "garbagecollector_attempts_total", "Items processed from the attempt_to_delete and attempt_to_orphan queues, by outcome.", ["queue", "outcome"]);
  const deletions = counter(registry, "garbagecollector_deletions_total", "Objects the garbage collector deleted, by propagation policy.", ["propagation_policy"]);
  const referencesRemoved = counter(
    registry,
    "garbagecollector_owner_references_removed_total",
    "ownerReferences removed from dependents (dangling owners, owners deleting in the foreground, orphaning).",
  );
  const syncErrors = counter(
    registry,
    "garbagecollector_controller_resources_sync_error_total",
    "Times discovery failed, or found nothing to monitor, when the garbage collector resynced its resources.",
  );
  return {
    graphChanged: (type) => graphChanges[type].add(),
    attempted: (queue, outcome) => attempts.inc({ queue, outcome }),
    deleted: (policy) => deletions.inc({ propagation_policy: policy }),
    referencesRemoved: (count) => referencesRemoved.inc(count),
    resourcesSyncFailed: () => syncErrors.inc(),
  };
}
