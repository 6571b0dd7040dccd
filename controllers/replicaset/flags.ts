// The replicaset controller's flags, named and defaulted as kube-controller-manager's.
import { maxWorkers } from "../../pkg/controller/controller.ts";
import { flagGroup } from "../../pkg/options/flag-group.ts";

// At most maxWorkers, where kube-controller-manager takes any int32 (README, "Differences").
export const concurrentReplicaSetSyncsFlag = flagGroup("ReplicaSet controller").int("concurrent-replicaset-syncs", 5,
  "ReplicaSets synced at the same time: more react faster, at the cost of CPU and API requests.", { min: 1, max: maxWorkers });
