// How the replicaset controller plugs into kube-loom: kube-controller-manager's replicaset-controller,
// on by default, with --concurrent-replicaset-syncs workers over the shared Pod and ReplicaSet
// informers, and its own client at --kube-api-qps/--kube-api-burst, as kube-controller-manager
// gives each controller its own.
import { ReconcileRunner } from "../../pkg/controller/reconcile-runner.ts";
import { withRateLimit } from "../../pkg/kube/client.ts";
import type { ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import { kubeApiBurstFlag, kubeApiQpsFlag } from "../../pkg/options/core-flags.ts";
import { defaultControllerRateLimiter } from "../../pkg/workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../../pkg/workqueue/rate-limiting-queue.ts";
import { concurrentReplicaSetSyncsFlag } from "./flags.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";

const name = "replicaset";

export const replicaSetControllerDescriptor: ControllerDescriptor = {
  name,
  aliases: ["replicaset-controller"],
  enabledByDefault: true,
  flags: [concurrentReplicaSetSyncsFlag],
  async create(context) {
    const { values } = context;
    const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(), { name, metricsProvider: context.workqueueMetrics });
    const controller = new ReplicaSetController({
      client: withRateLimit(context.client, values.get(kubeApiQpsFlag), values.get(kubeApiBurstFlag)),
      informers: context.informers,
      events: context.events,
      logger: context.logger,
      queue,
    });
    const runner = new ReconcileRunner({
      name,
      queue,
      reconciler: controller,
      workers: values.get(concurrentReplicaSetSyncsFlag),
      logger: context.logger,
      metrics: context.reconcileMetrics,
    });
    return { run: (stop, abort) => runner.run(stop, abort), informers: controller.informers, healthCheck: runner.healthCheck() };
  },
};
