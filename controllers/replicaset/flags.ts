// The replicaset controller's flags, named and defaulted as kube-controller-manager's.
import { intFlag } from "../../pkg/options/flag-definition.ts";

export const concurrentReplicaSetSyncsFlag = intFlag({
  name: "concurrent-replicaset-syncs",
  group: "ReplicaSet controller",
  default: 5,
  min: 1,
  help: "ReplicaSets synced at the same time: more react faster, at the cost of CPU and API requests.",
});
