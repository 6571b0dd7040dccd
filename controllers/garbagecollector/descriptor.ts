// How the garbage collector plugs into kube-loom: kube-controller-manager's
// garbage-collector-controller, on by default, --concurrent-gc-syncs workers per queue, and a
// rate limit of its own at twice --kube-api-qps (each collected object costs about two requests).
// Its two loops share one graph, which the builder cannot say, so it is built on the controller
// core directly (see GarbageCollector).
import type { ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import { concurrentGcSyncsFlag, enableGarbageCollectorFlag } from "./flags.ts";
import { GarbageCollector } from "./garbage-collector.ts";

const name = "garbagecollector";

/** The garbagecollector controller (alias garbage-collector-controller): ownerReference cascading deletion for every resource. */
export const garbageCollectorDescriptor: ControllerDescriptor = {
  serviceAccountName: "generic-garbage-collector",
  reportingController: "garbage-collector-controller",
  name,
  aliases: ["garbage-collector-controller"],
  enabledByDefault: true,
  flags: [concurrentGcSyncsFlag, enableGarbageCollectorFlag],
  client: { ownRateLimit: { qpsFactor: 2 } },
  async create(context) {
    if (!context.values.get(enableGarbageCollectorFlag)) {
      context.logger.info("garbage collector disabled by --enable-garbage-collector=false");
      return undefined;
    }
    const collector = new GarbageCollector({ ...context, name, workers: context.values.get(concurrentGcSyncsFlag) });
    await collector.initialize();
    return collector;
  },
};
