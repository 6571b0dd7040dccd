// How the replicaset controller plugs into kube-loom: kube-controller-manager's replicaset-controller,
// on by default, with --concurrent-replicaset-syncs workers over the shared Pod and ReplicaSet
// informers, and a rate limit of its own at --kube-api-qps/--kube-api-burst, as
// kube-controller-manager gives each controller its own client.
import { controller } from "../../pkg/builder/controller-builder.ts";
import { concurrentReplicaSetSyncsFlag } from "./flags.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";

/** The replicaset controller (alias replicaset-controller): kube-controller-manager's ReplicaSet semantics. */
export const replicaSetControllerDescriptor = controller("replicaset")
  .aliases("replicaset-controller")
  .workers(concurrentReplicaSetSyncsFlag)
  .clientPolicy({ ownRateLimit: { qpsFactor: 1 } })
  // No `for`: its own handlers queue the keys (they also track the Pods each ReplicaSet expects).
  .complete((context) => new ReplicaSetController(context));
