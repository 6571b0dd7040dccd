// The replicaset controller's flags, named and defaulted as kube-controller-manager's.
import { intFlag } from "../../pkg/options/flag-definition.ts";

export const concurrentReplicaSetSyncsFlag = intFlag({
  name: "concurrent-replicaset-syncs",
  group: "ReplicaSet controller",
  default: 5,
  min: 1,
  help: "The number of replica sets that are allowed to sync concurrently. Larger number = more responsive replica management, but more CPU (and network) load",
});
