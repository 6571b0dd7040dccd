// How the garbage collector plugs into kube-loom: kube-controller-manager's
// garbage-collector-controller, on by default, --concurrent-gc-syncs workers per queue, and its
// own client at twice --kube-api-qps (each collected object costs about two requests).
import type { ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import { withRateLimit } from "../../pkg/kube/client.ts";
import { kubeApiBurstFlag, kubeApiQpsFlag } from "../../pkg/options/core-flags.ts";
import { concurrentGcSyncsFlag, enableGarbageCollectorFlag } from "./flags.ts";
import { GarbageCollector } from "./garbage-collector.ts";

const name = "garbagecollector";

export const garbageCollectorDescriptor: ControllerDescriptor = {
  serviceAccountName: "generic-garbage-collector",
  name,
  aliases: ["garbage-collector-controller"],
  enabledByDefault: true,
  flags: [concurrentGcSyncsFlag, enableGarbageCollectorFlag],
  async create(context) {
    const { values, logger } = context;
    if (!values.get(enableGarbageCollectorFlag)) {
      logger.info("garbage collector disabled by --enable-garbage-collector=false");
      return undefined;
    }
    const collector = new GarbageCollector({
      name,
      client: withRateLimit(context.client, 2 * values.get(kubeApiQpsFlag), values.get(kubeApiBurstFlag)),
      informers: context.informers,
      events: context.events,
      logger,
      metrics: context.metrics,
      workqueueMetrics: context.workqueueMetrics,
      reconcileMetrics: context.reconcileMetrics,
      workers: values.get(concurrentGcSyncsFlag),
    });
    await collector.initialize();
    return {
      run: (stop, abort) => collector.run(stop, abort),
      healthCheck: collector.healthCheck(),
      debugRoutes: collector.debugRoutes(),
      status: () => collector.status(),
    };
  },
};
