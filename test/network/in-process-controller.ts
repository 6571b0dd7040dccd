// The network controller wired up in the test process, the way the manager wires it, around a
// provider the test can also reach directly (the in-memory one).
import { Registry } from "prom-client";
import { NetworkController } from "../../controllers/network/network-controller.ts";
import { KubeNetworkWriter } from "../../controllers/network/network-writer.ts";
import { instrumentedNetworkProvider } from "../../controllers/network/providers/instrumented-provider.ts";
import type { NetworkProvider } from "../../controllers/network/providers/provider.ts";
import { EventBroadcaster } from "../../pkg/events/broadcaster.ts";
import { KubeEventSink } from "../../pkg/events/kube-event-sink.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient } from "../../pkg/kube/client.ts";
import { silentLogger } from "../../pkg/log/logger.ts";

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
  const client = await createKubeClient(loadClientConfig({ kubeconfig: options.kubeconfig }));
  const registry = new Registry();
  const stop = new AbortController();
  const informers = new SharedInformerFactory({ listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope), defaultResyncMs: 0 });
  const broadcaster = new EventBroadcaster({ sink: new KubeEventSink(client), reportingInstance: "network-test" });
  broadcaster.start();
  const controller = new NetworkController({
    informers,
    events: broadcaster.newRecorder(),
    logger: silentLogger,
    provider: instrumentedNetworkProvider(options.provider, registry),
    writer: new KubeNetworkWriter(client, "network-test"),
    workers: options.workers,
    resyncPeriodMs: options.resyncPeriodMs,
  });
  informers.start(stop.signal);
  await informers.waitForCacheSync(stop.signal, 60_000);
  const running = controller.run(stop.signal, stop.signal);
  return {
    metrics: () => registry.metrics(),
    async stop() {
      stop.abort();
      await running;
      await informers.shutdown();
      await broadcaster.shutdown();
    },
  };
}
