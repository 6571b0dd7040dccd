// The network controller (kube-controller-manager style): Network events and periodic resyncs
// (drift checks) feed --concurrent-network-syncs workers running the NetworkReconciler. On by
// default; idle until the Network CRD is installed, then it starts by itself; the in-memory
// provider unless --network-provider says otherwise.
import { controller } from "../../pkg/builder/controller-builder.ts";
import type { ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from "../../pkg/workqueue/rate-limiters.ts";
import { concurrentNetworkSyncsFlag, networkControllerFlags, networkResyncPeriodFlag } from "./flags.ts";
import { networkNeedsReconcile } from "./network-predicate.ts";
import { NetworkReconciler } from "./network-reconciler.ts";
import { networkGVR } from "./network-resource.ts";
import { KubeNetworkWriter } from "./network-writer.ts";
import { ProviderOutageBackoff } from "./provider-outage-backoff.ts";
import { createNetworkProvider } from "./provider-setup.ts";
import { instrumentedNetworkProvider } from "./providers/instrumented-provider.ts";
import type { NetworkProvider } from "./providers/provider.ts";

/** Provider errors: 1 s doubling to 5 min per Network (a cloud API deserves more patience than client-go's 5 ms start), 10/s overall. */
const providerErrorRateLimiter = () =>
  new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(1_000, 300_000), new BucketRateLimiter<string>(10, 100));

/** While the provider is unreachable, probes 1 s, 2 s, 4 s … apart, at most 30 s. */
const outageBackoff = { initialMs: 1_000, maxMs: 30_000 };

/** The controller over the provider the flags choose, or over `provider` (tests that inspect it). */
export function networkController(provider?: NetworkProvider): ControllerDescriptor {
  return controller("network")
    .flags(...networkControllerFlags)
    .workers(concurrentNetworkSyncsFlag)
    .rateLimiter(providerErrorRateLimiter)
    .for(networkGVR, { waitForCrd: true, predicates: [networkNeedsReconcile], resyncPeriodMs: networkResyncPeriodFlag })
    .complete((context) => {
      const { logger, queue } = context;
      const chosen = provider ? instrumentedNetworkProvider(provider, context.metrics) : createNetworkProvider(context);
      const outage = new ProviderOutageBackoff({
        ...outageBackoff,
        onRecovered: (keys) => {
          logger.info({ networks: keys.length }, `${chosen.kind} answers again; requeueing the Networks that waited`);
          for (const key of keys) queue.add(key);
        },
      });
      return new NetworkReconciler({
        writer: new KubeNetworkWriter(context.client, "kube-loom-network-controller"),
        provider: chosen,
        outage,
        events: context.events,
        logger,
      });
    });
}

/** The network controller: samplecrd.k8s.io/v1 Networks reconciled against OpenStack Neutron or an in-memory provider (see its flags). */
export const networkControllerDescriptor = networkController();
