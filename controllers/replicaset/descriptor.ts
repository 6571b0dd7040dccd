// How the replicaset controller plugs into kube-loom: kube-controller-manager's replicaset-controller,
// on by default, with --concurrent-replicaset-syncs workers over the shared Pod and ReplicaSet
// informers, and its own client at --kube-api-qps/--kube-api-burst, as kube-controller-manager
// gives each controller its own.
import type { V1ReplicaSet } from "@kubernetes/client-node";
import { controller } from "../../pkg/builder/controller-builder.ts";
import { withRateLimit } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { Wire } from "../../pkg/kube/objects.ts";
import { kubeApiBurstFlag, kubeApiQpsFlag } from "../../pkg/options/core-flags.ts";
import { concurrentReplicaSetSyncsFlag } from "./flags.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";

export const replicaSetControllerDescriptor = controller("replicaset")
  .aliases("replicaset-controller")
  .workers(concurrentReplicaSetSyncsFlag)
  // Its handlers also track the Pods each ReplicaSet expects, so they are the controller's own.
  .for<Wire<V1ReplicaSet>>(resources.replicaSets, { events: "manual" })
  .complete(
    (context) =>
      new ReplicaSetController({
        ...context,
        client: withRateLimit(context.client, context.values.get(kubeApiQpsFlag), context.values.get(kubeApiBurstFlag)),
      }),
  );
