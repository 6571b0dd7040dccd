// Timer delay during a relist: while an informer lists, decodes, queues and handles 100,000
// ConfigMaps on one real API server, a setInterval(…, 10) probe in the same process records how
// late it fires. A late timer is a late lease renewal, a late health check. Measured for
// kube-loom's informer (its first list, then a relist forced by a 410) and for
// @kubernetes/client-node's makeInformer (its list), each in a fresh Bun process.
//   bun bench/relist-timer-delay.ts [objects, default 100000]
// Internally it re-runs itself as a worker:
//   bun bench/relist-timer-delay.ts --worker <kube-loom|client-node> <kubeconfig> <namespace> <objects>
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from "@kubernetes/client-node";
import { untilAborted } from "../pkg/informer/abortable.ts";
import { SharedInformerFactory } from "../pkg/informer/factory.ts";
import { initialEventsEndAnnotation } from "../pkg/informer/reflector.ts";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient, defaultClientOptions } from "../pkg/kube/client.ts";
import { ApiError } from "../pkg/kube/errors.ts";
import { resources } from "../pkg/kube/gvr.ts";
import type { ListerWatcher } from "../pkg/kube/list-watch.ts";
import type { KubeObject, WatchEvent } from "../pkg/kube/objects.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { ensureNamespace, fastClient, inParallel } from "../test/integration/informer-fixtures.ts";
import { clientNodeKubeconfig } from "./client-node-kubeconfig.ts";
import { printTable } from "./print-table.ts";

interface Measurement {
  variant: string;
  phase: "list" | "relist";
  objects: number;
  seconds: number;
  maxDelayMs: number;
  p99DelayMs: number;
}

const probeIntervalMs = 10;

if (process.argv[2] === "--worker") {
  const [variant, kubeconfig, namespace, objectsText] = process.argv.slice(3);
  if (!variant || !kubeconfig || !namespace || !objectsText) throw new Error("usage: relist-timer-delay.ts --worker <variant> <kubeconfig> <namespace> <objects>");
  const measurements = variant === "client-node" ? await clientNodeWorker(kubeconfig, namespace, Number(objectsText)) : await kubeLoomWorker(kubeconfig, namespace, Number(objectsText));
  console.log(JSON.stringify(measurements));
  process.exit(0);
} else {
  await main(Number(process.argv[2] ?? 100_000));
}

async function main(objects: number): Promise<void> {
  const controlPlane = await ControlPlane.start();
  try {
    const client = await fastClient(controlPlane.kubeconfigPath);
    const namespace = "relist-bench";
    await ensureNamespace(client, namespace);
    const configMaps = client.dynamic.resource(resources.configMaps, namespace);
    const started = performance.now();
    await inParallel(Array.from({ length: objects }, (_, i) => `cm-${i}`), 64, (name) =>
      configMaps.create({ metadata: { name }, data: { payload: "x".repeat(64) } }),
    );
    console.error(`created ${objects} ConfigMaps in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const tokenKubeconfig = await clientNodeKubeconfig(controlPlane);
    const rows: Measurement[] = [];
    for (const variant of ["kube-loom", "client-node"] as const) {
      const kubeconfig = variant === "client-node" ? tokenKubeconfig : controlPlane.kubeconfigPath;
      rows.push(...(await runWorker(variant, kubeconfig, namespace, objects, controlPlane.caFile)));
    }
    printResults(rows);
  } finally {
    await controlPlane.stop();
  }
}

async function runWorker(variant: string, kubeconfig: string, namespace: string, objects: number, caFile: string): Promise<Measurement[]> {
  const worker = Bun.spawn(["./node_modules/.bin/bun", "bench/relist-timer-delay.ts", "--worker", variant, kubeconfig, namespace, String(objects)], {
    stdout: "pipe",
    stderr: "pipe",
    // client-node's TLS options are ignored on Bun; the CA must come from the environment.
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
  });
  const [code, stdout, stderr] = await Promise.all([worker.exited, new Response(worker.stdout).text(), new Response(worker.stderr).text()]);
  if (code !== 0) throw new Error(`${variant} worker failed (${code}): ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").pop() ?? "") as Measurement[];
}

/** Records how late each tick of a 10 ms interval fires, until stopped. */
function startProbe(): { stop(): { maxDelayMs: number; p99DelayMs: number } } {
  const delays: number[] = [];
  let last = performance.now();
  const interval = setInterval(() => {
    const now = performance.now();
    delays.push(Math.max(0, now - last - probeIntervalMs));
    last = now;
  }, probeIntervalMs);
  return {
    stop() {
      clearInterval(interval);
      delays.push(Math.max(0, performance.now() - last - probeIntervalMs));
      delays.sort((a, b) => a - b);
      return { maxDelayMs: delays.at(-1) ?? 0, p99DelayMs: delays[Math.floor(delays.length * 0.99)] ?? 0 };
    },
  };
}

async function measure(variant: string, phase: Measurement["phase"], objects: number, work: () => Promise<void>): Promise<Measurement> {
  const probe = startProbe();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  return { variant, phase, objects, seconds, ...probe.stop() };
}

/**
 * kube-loom's informer as the manager runs it, with a handler. After the first sync the test
 * ends the watch and answers the re-watch with 410, so the reflector relists: a streaming list of
 * every object (a LIST where the server refuses one), a replace, and processing of each.
 */
async function kubeLoomWorker(kubeconfig: string, namespace: string, objects: number): Promise<Measurement[]> {
  const client = await createKubeClient(loadClientConfig({ kubeconfig }), defaultClientOptions);
  const relist = new RelistOnDemand(client.dynamic.listerWatcher(resources.configMaps, { namespace, metadataOnly: false }));
  const factory = new SharedInformerFactory({ listerWatcherFor: () => relist, defaultResyncMs: 0 });
  const { informer } = factory.forResource(resources.configMaps, { namespace });
  let added = 0;
  informer.addEventHandler({ onAdd: () => void added++ });
  const stop = new AbortController();
  const list = await measure("kube-loom", "list", objects, async () => {
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal);
    await waitUntil(() => added >= objects, "every object handled", 600_000, 5);
  });
  // A watch closed within a second of opening would count as a failure and relist after a backoff.
  await Bun.sleep(1500);
  const relisted = await measure("kube-loom", "relist", objects, async () => {
    const cache = informer.getIndexer();
    const { lastKey, before } = await relist.force((key) => cache.getByKey(key));
    // Keys are processed in list order: the last one's new object in the cache means all are done.
    await waitUntil(() => cache.getByKey(lastKey) !== before, "relist processed", 600_000, 5);
  });
  stop.abort();
  await factory.shutdown();
  return [list, relisted];
}

/** A ListerWatcher that, on demand, ends the open watch and answers the next one with 410 Gone. */
class RelistOnDemand implements ListerWatcher {
  private endWatch = new AbortController();
  private expireNext = false;
  private onList: ((items: KubeObject[]) => void) | undefined;

  constructor(private readonly inner: ListerWatcher) {}

  /** Resolves once the relist's objects arrived (LIST or stream), with the last key and what the cache held for it then. */
  force(cached: (key: string) => KubeObject | undefined): Promise<{ lastKey: string; before: KubeObject | undefined }> {
    return new Promise((resolve) => {
      this.onList = (items) => {
        this.onList = undefined;
        const last = items.at(-1);
        const lastKey = `${last?.metadata?.namespace}/${last?.metadata?.name}`;
        resolve({ lastKey, before: cached(lastKey) });
      };
      this.expireNext = true;
      this.endWatch.abort();
    });
  }

  async list(...args: Parameters<ListerWatcher["list"]>) {
    const list = await this.inner.list(...args);
    this.onList?.(list.items);
    return list;
  }

  async watch(...args: Parameters<ListerWatcher["watch"]>) {
    if (this.expireNext) {
      this.expireNext = false;
      throw new ApiError(410, "Expired", "too old resource version (forced by the benchmark)", "GET", "/bench");
    }
    this.endWatch = new AbortController();
    const events = untilAborted(await this.inner.watch(...args), this.endWatch.signal);
    return args[0].sendInitialEvents && this.onList ? this.reportInitialEvents(events) : events;
  }

  /** Passes a streaming list's events on, telling onList its objects once the bookmark that ends them comes. */
  private async *reportInitialEvents(events: AsyncIterable<WatchEvent<KubeObject>>): AsyncGenerator<WatchEvent<KubeObject>> {
    const items: KubeObject[] = [];
    for await (const event of events) {
      if (event.type === "ADDED") items.push(event.object);
      if (event.type === "BOOKMARK" && event.object.metadata?.annotations?.[initialEventsEndAnnotation] === "true") this.onList?.(items);
      yield event;
    }
  }
}

/** client-node's own informer, as its README shows it. */
async function clientNodeWorker(kubeconfig: string, namespace: string, objects: number): Promise<Measurement[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
  let added = 0;
  informer.on("add", () => void added++);
  const list = await measure("client-node", "list", objects, async () => {
    await informer.start();
    await waitUntil(() => added >= objects && informer.list(namespace).length >= objects, "every object handled", 600_000, 5);
  });
  await informer.stop();
  return [list];
}

function printResults(rows: Measurement[]): void {
  const peer = rows.find((r) => r.variant === "client-node");
  const lines = [["informer", "phase", "objects", "seconds", "max timer delay ms", "p99 timer delay ms", "max vs client-node"]];
  for (const r of rows) {
    lines.push([
      r.variant,
      r.phase,
      String(r.objects),
      r.seconds.toFixed(2),
      r.maxDelayMs.toFixed(1),
      r.p99DelayMs.toFixed(1),
      peer ? `${(r.maxDelayMs / peer.maxDelayMs).toFixed(2)}×` : "",
    ]);
  }
  printTable(lines);
}
