// Cache memory: what kube-loom's informers hold for N Pods under 500 ReplicaSets, with the
// ReplicaSet controller and the garbage collector declaring their caches as the manager has them
// do (both controllers built, the informers started and synced, the workers not run: an idle
// process). Pods are shaped as the ReplicaSet controller makes them and a node reports them:
// labels, a controller reference, one container with image, ports, resources and the
// service-account volume, a node, and a Running status with five conditions and a container
// status (about 5 KiB of JSON each, 2 KiB of it managedFields). Each variant runs in a fresh
// process and reports, after Bun.gc(true), RSS, live heap and heap capacity; then the highest
// RSS while the Pod informer relists (a 410 forced on its watch) against the RSS before it.
// Variants: "none" (whole Pods, plus the garbage collector's metadata-only copy), (a) one Pod
// informer shared by both controllers, (b) Pods keeping only the fields their readers declare,
// (c) repeated strings pooled as objects are decoded, and their combinations.
//   bun bench/cache-memory.ts [sizes, default 20000,50000] [variants, default all] [state dir]
// A state dir keeps etcd's data between runs, so the Pods are created once. The file also runs
// in a checkout of an older commit (its "none" is then that commit's caches, as none of the
// variants' options exist there).
// Internally it re-runs itself as a worker:
//   bun bench/cache-memory.ts --worker <variant> <kubeconfig> <pods>
import { heapStats } from "bun:jsc";
import { garbageCollectorDescriptor } from "../controllers/garbagecollector/descriptor.ts";
import { replicaSetControllerDescriptor } from "../controllers/replicaset/descriptor.ts";
import type { EventRecorder } from "../pkg/events/recorder.ts";
import {
  type InformerScope,
  type ReadOptions,
  type ResourceInformer,
  SharedInformerFactory,
  type SharedInformerFactoryOptions,
} from "../pkg/informer/factory.ts";
import type { InformerIdentity, InformerMetricsProvider } from "../pkg/informer/metrics.ts";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient, defaultClientOptions, type KubeClient } from "../pkg/kube/client.ts";
import { ApiError } from "../pkg/kube/errors.ts";
import { type GroupVersionResource, type ObjectOf, resources } from "../pkg/kube/gvr.ts";
import type { ListOptions, ListerWatcher, WatchOptions } from "../pkg/kube/list-watch.ts";
import type { KubeObject, ObjectList, WatchEvent } from "../pkg/kube/objects.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { ensureNamespace, fastClient, inParallel } from "../test/integration/informer-fixtures.ts";
import { testControllerContext } from "../test/support/controller-context.ts";
import { describeMachine } from "./machine.ts";
import { printTable } from "./print-table.ts";

type Pod = ObjectOf<typeof resources.pods>;
type ReplicaSet = ObjectOf<typeof resources.replicaSets>;

const replicaSetCount = 500;
const namespaceCount = 10;

/** The levers measured: (a) share, (b) project, (c) intern; (d), a relist without a second copy, is always in. */
interface VariantOptions {
  /** The garbage collector's monitor of Pods reads the ReplicaSet controller's Pod informer instead of a metadata-only one of its own. */
  share: boolean;
  /** Informers keep only the fields their readers declared. */
  project: boolean;
  /** Repeated strings of each object replaced by one pooled copy. */
  intern: boolean;
}

const variants = {
  none: { share: false, project: false, intern: false },
  a: { share: true, project: false, intern: false },
  b: { share: false, project: true, intern: false },
  c: { share: false, project: false, intern: true },
  "a+b": { share: true, project: true, intern: false },
  "a+b+c": { share: true, project: true, intern: true },
} as const satisfies Record<string, VariantOptions>;
type Variant = keyof typeof variants;

interface WorkerResult {
  variant: string;
  pods: number;
  syncSeconds: number;
  /** The process with its modules loaded and the controllers built, before the informers start. */
  baseRssMiB: number;
  rssMiB: number;
  /** Live objects after a full collection, and what the heap holds (live or not). */
  heapMiB: number;
  heapCapacityMiB: number;
  /** Sampled every 5 ms from the forced relist until the cache holds the relisted Pods. */
  relistPeakRssMiB: number;
  afterRelistRssMiB: number;
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? "20000,50000").split(",").map(Number);
  const chosen = (process.argv[3] ?? Object.keys(variants).join(",")).split(",");
  for (const name of chosen) if (!(name in variants)) throw new Error(`unknown variant ${JSON.stringify(name)}: expected one of ${Object.keys(variants).join(", ")}`);
  const stateDir = process.argv[4];
  console.log(describeMachine());
  const controlPlane = await ControlPlane.start(stateDir ? { dir: stateDir } : {});
  try {
    const client = await fastClient(controlPlane.kubeconfigPath);
    const rows: WorkerResult[] = [];
    for (const size of sizes) {
      const started = performance.now();
      const created = await ensurePods(client, size);
      console.error(`${size} Pods in place (${created} created in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
      for (const variant of chosen) {
        const result = await runWorker(variant, controlPlane.kubeconfigPath, size);
        console.error(JSON.stringify(result));
        rows.push(result);
      }
    }
    printResults(rows);
  } finally {
    await controlPlane.stop();
  }
}

async function runWorker(variant: string, kubeconfig: string, pods: number): Promise<WorkerResult> {
  const child = Bun.spawn(["./node_modules/.bin/bun", "bench/cache-memory.ts", "--worker", variant, kubeconfig, String(pods)], { stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`worker ${variant} failed (${code}): ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").pop() ?? "") as WorkerResult;
}

function printResults(rows: readonly WorkerResult[]): void {
  const lines = [["Pods", "variant", "RSS MiB", "vs none", "heap MiB", "heap capacity MiB", "sync s", "relist peak MiB", "peak / before"]];
  for (const row of rows) {
    const none = rows.find((r) => r.pods === row.pods && r.variant === "none");
    lines.push([
      row.pods.toLocaleString("en-US"),
      row.variant,
      row.rssMiB.toFixed(0),
      none ? `${(row.rssMiB / none.rssMiB).toFixed(2)}×` : "",
      row.heapMiB.toFixed(0),
      row.heapCapacityMiB.toFixed(0),
      row.syncSeconds.toFixed(1),
      row.relistPeakRssMiB.toFixed(0),
      `${(row.relistPeakRssMiB / row.rssMiB).toFixed(2)}×`,
    ]);
  }
  printTable(lines);
}

// --- the cluster -------------------------------------------------------------------------------

function namespaceOf(replicaSet: number): string {
  return `team-${replicaSet % namespaceCount}`;
}

function replicaSetName(replicaSet: number): string {
  return `web-${replicaSet}-5d8f9c7b6`;
}

/** Creates what is missing of the 500 ReplicaSets and `total` Pods spread evenly over them; returns how many Pods it created. */
async function ensurePods(client: KubeClient, total: number): Promise<number> {
  for (let n = 0; n < namespaceCount; n++) await ensureNamespace(client, `team-${n}`);
  const replicaSets = await ensureReplicaSets(client, Math.ceil(total / replicaSetCount));
  const existing = new Set((await client.dynamic.metadata(resources.pods).list({})).items.map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`));
  const missing = Array.from({ length: total }, (_, i) => i).filter((i) => !existing.has(`${namespaceOf(i % replicaSetCount)}/${podName(i)}`));
  await inParallel(missing, 64, async (i) => {
    const owner = replicaSets[i % replicaSetCount] as ReplicaSet;
    const pods = client.dynamic.resource<Pod>(resources.pods, owner.metadata?.namespace);
    const created = await pods.create(podOf(owner, i));
    await pods.updateStatus({ ...created, status: runningStatus(i) });
  });
  return missing.length;
}

async function ensureReplicaSets(client: KubeClient, replicas: number): Promise<ReplicaSet[]> {
  const found: ReplicaSet[] = [];
  await inParallel(
    Array.from({ length: replicaSetCount }, (_, r) => r),
    32,
    async (r) => {
      const replicaSets = client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespaceOf(r));
      const labels = { app: `web-${r}`, "pod-template-hash": "5d8f9c7b6" };
      const body: ReplicaSet = {
        metadata: { name: replicaSetName(r), labels },
        spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container] } } },
      };
      const replicaSet = await replicaSets.create(body).catch(async (err: unknown) => {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
        return replicaSets.get(replicaSetName(r));
      });
      found[r] = replicaSet;
    },
  );
  return found;
}

const container = {
  name: "web",
  image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
  args: ["netexec", "--http-port=8080"],
  ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } },
};

function podName(i: number): string {
  return `${replicaSetName(i % replicaSetCount)}-${(i * 7919 + 1_000_000).toString(36).slice(-5)}`;
}

function podOf(owner: ReplicaSet, i: number): Pod {
  const { name = "", uid = "", labels } = owner.metadata ?? {};
  return {
    metadata: {
      name: podName(i),
      generateName: `${name}-`,
      labels,
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name, uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: `node-${i % 100}`,
      serviceAccountName: "default",
      containers: [{ ...container, volumeMounts: [{ name: serviceAccountVolume.name, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true }] }],
      volumes: [serviceAccountVolume],
    },
  };
}

/** What the ServiceAccount admission plugin adds to every Pod (the test control plane runs without it). */
const serviceAccountVolume = {
  name: "kube-api-access-7x2kq",
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  },
};

function runningStatus(i: number): Pod["status"] {
  const at = new Date(Date.UTC(2026, 10, 1, 0, 0, i % 3600)).toISOString().replace(/\.\d+Z$/, "Z");
  const podIP = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const hostIP = `192.168.0.${i % 100}`;
  const conditions = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
  return {
    phase: "Running",
    conditions: conditions.map((type) => ({ type, status: "True", lastTransitionTime: at })),
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: at,
    qosClass: "Burstable",
    containerStatuses: [
      {
        name: "web",
        state: { running: { startedAt: at } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: container.image,
        imageID: "registry.k8s.io/e2e-test-images/agnhost@sha256:99c6b4bb4a1e1df3f0b3752168c89358794d02258ebebc26bf21c29399011a85",
        containerID: `containerd://${i.toString(16).padStart(64, "0")}`,
        started: true,
      },
    ],
  };
}

// --- one measurement, in its own process ----------------------------------------------------------

/**
 * The factory under a variant: without `share`, the garbage collector's monitors get informers
 * of their own (metadata only); without `project`, declared fields are ignored (whole objects).
 */
class VariantFactory extends SharedInformerFactory {
  constructor(
    options: SharedInformerFactoryOptions,
    private readonly variant: VariantOptions,
  ) {
    super(options);
  }

  override forResource<T extends KubeObject>(gvr: GroupVersionResource<T>, scope?: InformerScope, options?: ReadOptions): ResourceInformer<T> {
    return super.forResource(gvr, scope, this.variant.project ? options : {});
  }

  override forMetadataReader(gvr: GroupVersionResource, scope?: InformerScope): ResourceInformer<KubeObject> {
    return this.variant.share ? super.forMetadataReader(gvr, scope) : this.forMetadata(gvr, scope);
  }
}

async function worker(variant: Variant, kubeconfig: string, pods: number): Promise<WorkerResult> {
  const client = await createKubeClient(loadClientConfig({ kubeconfig }), defaultClientOptions);
  const options = variants[variant];
  const podSources: ForcedRelist[] = [];
  const processing = new ProcessingWatch();
  const informers = new VariantFactory(
    {
      listerWatcherFor: (gvr, request) => {
        const inner = client.dynamic.listerWatcher(gvr, request);
        const source = new ForcedRelist(options.intern ? interning(inner) : inner);
        if (gvr.resource === "pods" && !request.metadataOnly) podSources.push(source);
        return source;
      },
      defaultResyncMs: 0,
      metrics: { provider: processing, name: "bench" },
    },
    options,
  );
  const events: EventRecorder = { eventf: () => undefined };
  for (const descriptor of [replicaSetControllerDescriptor, garbageCollectorDescriptor]) {
    await descriptor.create(testControllerContext({ client, informers, events, descriptor }));
  }
  const base = await settledMemory();
  const stop = new AbortController();
  const started = performance.now();
  informers.start(stop.signal);
  const synced = await informers.waitForCacheSync(stop.signal, 600_000);
  if (!synced.synced) throw new Error(`informers not synced: ${synced.unsynced.join(", ")}`);
  const syncSeconds = (performance.now() - started) / 1000;
  // The ReplicaSet controller's Pod informer: the first of Pods, so the one reporting metrics.
  const podInformer = informers.list().find((informer) => informer.name === "pods.v1");
  const cached = podInformer?.getIndexer().size;
  if (cached !== pods) throw new Error(`the Pod cache holds ${cached} Pods, expected ${pods}`);
  const steady = await settledMemory();

  // A relist of the Pod cache: every Pod listed again while the cache holds them all.
  let peak = steady.rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const relisted = processing.nextReplace("pods");
  for (const source of podSources) source.force();
  await relisted;
  clearInterval(sampler);
  const after = await settledMemory();
  stop.abort();
  return {
    variant,
    pods,
    syncSeconds,
    baseRssMiB: mib(base.rss),
    rssMiB: mib(steady.rss),
    heapMiB: mib(steady.heap),
    heapCapacityMiB: mib(steady.heapCapacity),
    relistPeakRssMiB: mib(peak),
    afterRelistRssMiB: mib(after.rss),
  };
}

async function settledMemory(): Promise<{ rss: number; heap: number; heapCapacity: number }> {
  Bun.gc(true);
  await Bun.sleep(500);
  Bun.gc(true);
  const stats = heapStats();
  return { rss: process.memoryUsage.rss(), heap: stats.heapSize, heapCapacity: stats.heapCapacity };
}

function mib(bytes: number): number {
  return +(bytes / 2 ** 20).toFixed(1);
}

/**
 * Informer metrics that tell when an informer has processed a relist: once armed, the first
 * entry queued is the list (the cluster does not change meanwhile, and a streaming list queues
 * nothing before its end), and it is done when an entry finishes with the queue empty.
 */
class ProcessingWatch implements InformerMetricsProvider {
  private readonly armed = new Map<string, { queued: boolean; done: () => void }>();
  private readonly queueLength = new Map<string, number>();

  /** Resolves once the informer of `resource` has processed what is queued after this call. */
  nextReplace(resource: string): Promise<void> {
    return new Promise((done) => this.armed.set(resource, { queued: false, done }));
  }

  newQueuedItemMetric({ resource }: InformerIdentity) {
    return {
      set: (length: number) => {
        const previous = this.queueLength.get(resource.resource) ?? 0;
        this.queueLength.set(resource.resource, length);
        const waiting = this.armed.get(resource.resource);
        if (waiting && length > previous) waiting.queued = true;
      },
    };
  }

  newProcessingLatencyMetric({ resource }: InformerIdentity) {
    return {
      observe: () => {
        const waiting = this.armed.get(resource.resource);
        if (!waiting?.queued || this.queueLength.get(resource.resource) !== 0) return;
        this.armed.delete(resource.resource);
        waiting.done();
      },
    };
  }

  newStoreResourceVersionMetric() {
    return { set: () => undefined };
  }
}

/** Passes list and watch through; `force()` ends the open watch with 410 Gone, so the reflector lists everything again. */
class ForcedRelist implements ListerWatcher {
  private expire = new AbortController();

  constructor(private readonly inner: ListerWatcher) {}

  force(): void {
    this.expire.abort();
  }

  list(options: ListOptions, signal?: AbortSignal): Promise<ObjectList<KubeObject>> {
    return this.inner.list(options, signal);
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<KubeObject>>> {
    this.expire = new AbortController();
    const expired = this.expire.signal;
    // Aborting the inner watch ends its events quietly; the 410 comes after them.
    const events = await this.inner.watch(options, AbortSignal.any([signal, expired]));
    return (async function* () {
      yield* events;
      if (expired.aborted && !signal.aborted) throw new ApiError(410, "Expired", "too old resource version (forced by the benchmark)", "GET", "/bench");
    })();
  }
}

/**
 * Variant (c): every string an object carries that others are likely to carry too (labels,
 * owner references, namespaces, images, condition types and times...) replaced by one shared
 * copy from a pool, as decoded, before the informer sees the object. Names, UIDs,
 * resourceVersions, IPs and container IDs are left alone: unique strings would only fill the pool.
 */
function interning(inner: ListerWatcher): ListerWatcher {
  const pool = new Map<string, string>();
  const unique = new Set(["name", "uid", "resourceVersion", "ip", "podIP", "hostIP", "containerID", "creationTimestamp"]);
  const intern = (value: unknown, field: string): unknown => {
    if (typeof value === "string") {
      if (unique.has(field)) return value;
      const shared = pool.get(value);
      if (shared !== undefined) return shared;
      pool.set(value, value);
      return value;
    }
    if (Array.isArray(value)) return value.map((element) => intern(element, field));
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, intern(field, key)]));
  };
  const object = <T>(value: T): T => intern(value, "") as T;
  return {
    list: async (options, signal) => {
      const list = await inner.list(options, signal);
      return { ...list, items: list.items.map(object) };
    },
    watch: async (options, signal) => {
      const events = await inner.watch(options, signal);
      return (async function* () {
        for await (const event of events) yield event.type === "ERROR" ? event : { ...event, object: object(event.object) };
      })();
    },
  };
}

if (process.argv[2] === "--worker") {
  const [variant, kubeconfig, pods] = process.argv.slice(3);
  if (!variant || !(variant in variants) || !kubeconfig || !pods) throw new Error(`usage: cache-memory.ts --worker <${Object.keys(variants).join("|")}> <kubeconfig> <pods>`);
  console.log(JSON.stringify(await worker(variant as Variant, kubeconfig, Number(pods))));
  process.exit(0);
} else {
  await main();
}
