// The network controller run in the test process, as the manager runs it, around a provider
// the test can also reach directly (the in-memory one).
import { networkController } from "../../controllers/network/descriptor.ts";
import { concurrentNetworkSyncsFlag, networkResyncPeriodFlag } from "../../controllers/network/flags.ts";
import type { NetworkProvider } from "../../controllers/network/providers/provider.ts";
import { EventBroadcaster } from "../../pkg/events/broadcaster.ts";
import { KubeEventSink } from "../../pkg/events/kube-event-sink.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, defaultClientOptions } from "../../pkg/kube/client.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";
import { runControllerForTest, testControllerContext } from "../support/controller-context.ts";

export interface InProcessController {
  /** Prometheus text of the controller's provider metrics. */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

export async function startInProcessController(options: {
  kubeconfig: string;
  provider: NetworkProvider;
  resyncPeriodMs: number;
  workers: number;
}): Promise<InProcessController> {
  const client = await createKubeClient(loadClientConfig({ kubeconfig: options.kubeconfig }), { ...defaultClientOptions, contentType: testContentType() });
  const stop = new AbortController();
  const informers = new SharedInformerFactory({ listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope), defaultResyncMs: 0 });
  const broadcaster = new EventBroadcaster({ sink: new KubeEventSink(client), reportingInstance: "network-test" });
  broadcaster.start();
  const descriptor = networkController(options.provider);
  const flags = new Map([
    [networkResyncPeriodFlag, options.resyncPeriodMs],
    [concurrentNetworkSyncsFlag, options.workers],
  ] as const);
  const context = testControllerContext({ client, informers, events: broadcaster.newRecorder(), descriptor, flags });
  const { running } = await runControllerForTest(descriptor, context, stop.signal);
  return {
    metrics: () => context.metrics.metrics(),
    async stop() {
      stop.abort();
      await running;
      await informers.shutdown();
      await broadcaster.shutdown();
    },
  };
}
