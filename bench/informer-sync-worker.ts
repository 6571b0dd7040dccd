// One measurement of bench/informer-sync.ts, in its own process so its RSS is its own:
//   bun bench/informer-sync-worker.ts <kube-loom[-metadata][-list|-json]|client-node> <kubeconfig> <namespace> <expected-count>
// ("-list": fill the cache by LIST instead of a streaming list; "-json": read JSON instead of protobuf.)
// Prints one JSON line: {variant, syncMs, rssMiB, baseRssMiB, peakRssMiB, heapMiB, cached}; baseRssMiB
// is the process before the informer exists, so rssMiB − baseRssMiB is what the informer and its
// cache cost; peakRssMiB is the most RSS of the sync, its transient garbage included: the kernel's
// peak mark (VmHWM), reset as the clock starts, and read before anything is collected. Not
// sampled: reading RSS every 5 ms cost the informer about 25 ms of CPU in a 50,000-object sync,
// which client-go's peer does not pay.
import type { V1ConfigMap } from "@kubernetes/client-node";
import { SharedInformerFactory } from "../pkg/informer/factory.ts";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";
import { peakResidentMiB, resetPeakResident } from "./process-usage.ts";

const [variant, kubeconfig, namespace, expectedText] = process.argv.slice(2);
if (!variant || !kubeconfig || !namespace || !expectedText) {
  throw new Error("usage: informer-sync-worker.ts <variant> <kubeconfig> <namespace> <expected-count>");
}
const expected = Number(expectedText);

/** Starts an informer; resolves once it synced, with a way to count what its cache holds. */
type StartInformer = () => Promise<() => number>;

// Each variant reads its kubeconfig (and loads its modules) before the clock starts, as the client-go peer does.
const startInformer =
  variant === "client-node"
    ? await clientNodeInformer(kubeconfig, namespace)
    : kubeLoomInformer(kubeconfig, namespace, { metadataOnly: variant.includes("metadata"), useWatchList: !variant.endsWith("-list"), json: variant.endsWith("-json") });
Bun.gc(true);
const baseRssMiB = process.memoryUsage().rss / 2 ** 20;
// The process's own peak would mostly tell its start-up (module loading), not the sync.
resetPeakResident();
const started = performance.now();
const cached = await startInformer();
const syncMs = performance.now() - started;
while (cached() < expected) await Bun.sleep(10);
const peakRssMiB = peakResidentMiB();
Bun.gc(true);
await Bun.sleep(200);
Bun.gc(true);
const memory = process.memoryUsage();
console.log(
  JSON.stringify({
    variant,
    syncMs: Math.round(syncMs),
    rssMiB: +(memory.rss / 2 ** 20).toFixed(1),
    baseRssMiB: +baseRssMiB.toFixed(1),
    peakRssMiB: +peakRssMiB.toFixed(1),
    heapMiB: +(memory.heapUsed / 2 ** 20).toFixed(1),
    cached: cached(),
  }),
);
process.exit(0);

/** client-node's own informer, as its README shows it; TLS through NODE_EXTRA_CA_CERTS and a token (see bench/informer-sync.ts). */
async function clientNodeInformer(kubeconfig: string, namespace: string): Promise<StartInformer> {
  // Its modules take tens of MiB, which kube-loom's informers never load: only this variant imports them.
  const { KubeConfig, CoreV1Api, makeInformer } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
    await informer.start();
    return () => informer.list(namespace).length;
  };
}

function kubeLoomInformer(
  kubeconfig: string,
  namespace: string,
  { metadataOnly, useWatchList, json }: { metadataOnly: boolean; useWatchList: boolean; json: boolean },
): StartInformer {
  const config = loadClientConfig({ kubeconfig });
  return async () => {
    const client = await createKubeClient(config, { qps: 20, burst: 30, timeoutMs: 120_000, ...(json ? { contentType: "application/json" as const } : {}) });
    const factory = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope),
      defaultResyncMs: 0,
      informerOptions: { reflector: { useWatchList } },
    });
    const { informer } = metadataOnly ? factory.forMetadata(resources.configMaps, { namespace }) : factory.forResource(resources.configMaps, { namespace });
    factory.start(new AbortController().signal);
    // Not waitForCacheSync: it looks every 100 ms, which would round every figure up to that.
    while (!informer.hasSynced()) await Bun.sleep(1);
    return () => informer.getIndexer().list().length;
  };
}
