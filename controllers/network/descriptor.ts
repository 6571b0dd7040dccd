// Registers the network controller with the manager: on by default, idle until the Network
// CRD is installed, with the in-memory provider unless --network-provider says otherwise.
import type { ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import { concurrentNetworkSyncsFlag, networkControllerFlags, networkResyncPeriodFlag } from "./flags.ts";
import { NetworkController } from "./network-controller.ts";
import { KubeNetworkWriter } from "./network-writer.ts";
import { createNetworkProvider } from "./provider-setup.ts";

export const networkControllerDescriptor: ControllerDescriptor = {
  name: "network",
  aliases: [],
  enabledByDefault: true,
  flags: networkControllerFlags,
  async create(context) {
    return new NetworkController({
      informers: context.informers,
      events: context.events,
      logger: context.logger,
      workqueueMetrics: context.workqueueMetrics,
      reconcileMetrics: context.reconcileMetrics,
      provider: createNetworkProvider(context),
      writer: new KubeNetworkWriter(context.client, "kube-loom-network-controller"),
      workers: context.values.get(concurrentNetworkSyncsFlag),
      resyncPeriodMs: context.values.get(networkResyncPeriodFlag),
    });
  },
};
