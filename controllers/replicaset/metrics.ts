// What the replicaset controller reports at /metrics besides its workqueue's workqueue_* series,
// under kube-controller-manager's names so its dashboards and alerts apply unchanged.
import type { Registry } from "prom-client";
import { counter } from "../../pkg/metrics/declare.ts";
import type { GroupResource } from "./own-writes.ts";

export interface ReplicaSetMetrics {
  /** A sync was put off because the cache of `resource` had not caught up with the controller's own write. */
  staleSyncSkipped(resource: GroupResource): void;
}

export function prometheusReplicaSetMetrics(registry: Registry): ReplicaSetMetrics {
  const staleSyncSkips = counter(
    registry,
    "replicaset_controller_stale_sync_skips_total",
    "ReplicaSet syncs put off because an informer cache had not yet seen the controller's own last write, by the group and resource of that cache.",
    ["group", "resource"],
  );
  return {
    staleSyncSkipped: ({ group, resource }) => staleSyncSkips.inc({ group, resource }),
  };
}
