// The informer pipeline against a real API server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { SharedIndexInformer } from "../../pkg/informer/shared-informer.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { WatchOptions } from "../../pkg/kube/list-watch.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import {
  cacheVersions,
  createConfigMaps,
  ensureNamespace,
  fastClient,
  inParallel,
  informerFactory,
  listVersions,
  sameVersions,
} from "./informer-fixtures.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
const factories: SharedInformerFactory[] = [];
const stop = new AbortController();

function newFactory(): SharedInformerFactory {
  const factory = informerFactory(client);
  factories.push(factory);
  return factory;
}

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  stop.abort();
  await Promise.all(factories.map((f) => f.shutdown()));
  await controlPlane?.stop();
});

describe("informer against a real API server", () => {
  test("(a) 5,000 ConfigMaps: the informer syncs with exactly those contents", async () => {
    await ensureNamespace(client, "sync-5000");
    const names = Array.from({ length: 5000 }, (_, i) => `cm-${i}`);
    await createConfigMaps(client, "sync-5000", names, 64);
    const { informer } = newFactory().forResource(resources.configMaps, { namespace: "sync-5000" });
    const factory = factories.at(-1) as SharedInformerFactory;
    factory.start(stop.signal);
    const synced = await factory.waitForCacheSync(stop.signal, 120_000);
    expect(synced).toEqual({ synced: true, unsynced: [] });
    expect(informer.getIndexer().listKeys().sort()).toEqual(names.map((n) => `sync-5000/${n}`).sort());
    expect(sameVersions(cacheVersions(informer), await listVersions(client, resources.configMaps, "sync-5000"))).toBe(true);
    const sample = informer.getIndexer().getByKey("sync-5000/cm-4999") as KubeObject & { data?: Record<string, string> };
    expect(sample.data?.payload).toHaveLength(64);
    expect(sample.metadata?.managedFields).toBeUndefined();
  }, 300_000);

  test("(b) through 1,000 mixed creates, updates and deletes the cache stays equal to a fresh LIST", async () => {
    await ensureNamespace(client, "churn");
    const factory = newFactory();
    const { informer } = factory.forResource(resources.configMaps, { namespace: "churn" });
    const seen = { add: 0, update: 0, delete: 0 };
    informer.addEventHandler({
      onAdd: () => void seen.add++,
      onUpdate: () => void seen.update++,
      onDelete: () => void seen.delete++,
    });
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal, 60_000);
    const configMaps = client.dynamic.resource(resources.configMaps, "churn");
    const live: string[] = [];
    let created = 0;
    // A fixed pseudo-random sequence: reproducible, but interleaved like real traffic.
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const operations = Array.from({ length: 1000 }, () => random());
    for (const roll of operations) {
      if (live.length < 20 || roll < 0.4) {
        const name = `churn-${created++}`;
        await configMaps.create({ metadata: { name }, data: { v: "0" } });
        live.push(name);
      } else if (roll < 0.75) {
        const name = live[Math.floor(random() * live.length)] as string;
        await configMaps.patch(name, { data: { v: String(roll) } }, "merge");
      } else {
        const [name] = live.splice(Math.floor(random() * live.length), 1);
        await configMaps.delete(name as string);
      }
    }
    await waitUntil(
      async () => sameVersions(cacheVersions(informer), await listVersions(client, resources.configMaps, "churn")),
      "cache equal to LIST after churn",
    );
    expect(informer.getIndexer().list()).toHaveLength(live.length);
    expect(seen.add - seen.delete).toBe(live.length);
  }, 300_000);

  test("(f) a metadata-only informer over pods holds no spec", async () => {
    await ensureNamespace(client, "metadata-only");
    await (await client.typed()).core.createNamespacedPod({
      namespace: "metadata-only",
      body: { metadata: { name: "p", labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "busybox" }] } },
    });
    const factory = newFactory();
    const { informer } = factory.forMetadata(resources.pods, { namespace: "metadata-only" });
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal, 60_000);
    const pod = informer.getIndexer().getByKey("metadata-only/p");
    expect(pod?.kind).toBe("PartialObjectMetadata");
    expect(pod?.metadata?.labels).toEqual({ app: "x" });
    expect(pod).not.toHaveProperty("spec");
    expect(pod).not.toHaveProperty("status");
  }, 120_000);

  test("(g) a CRD's objects through a dynamic informer", async () => {
    const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.kube-loom.io }
spec:
  group: example.kube-loom.io
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: { type: object, properties: { size: { type: integer } } }
`;
    expect((await controlPlane.kubectl(["apply", "-f", "-"], { stdin: crd })).code).toBe(0);
    expect((await controlPlane.kubectl(["wait", "--for=condition=Established", "crd/widgets.example.kube-loom.io", "--timeout=60s"])).code).toBe(0);
    const widgets = { group: "example.kube-loom.io", version: "v1", resource: "widgets" };
    await ensureNamespace(client, "crd");
    const widgetClient = client.dynamic.resource(widgets, "crd");
    await inParallel([1, 2, 3], 3, (i) => widgetClient.create({ apiVersion: "example.kube-loom.io/v1", kind: "Widget", metadata: { name: `w${i}` }, spec: { size: i } } as KubeObject));
    const factory = newFactory();
    const { informer, lister } = factory.forResource<KubeObject & { spec?: { size?: number } }>(widgets);
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal, 60_000);
    expect(lister.namespace("crd").list().map((w) => w.spec?.size).sort()).toEqual([1, 2, 3]);
    await widgetClient.create({ apiVersion: "example.kube-loom.io/v1", kind: "Widget", metadata: { name: "w4" }, spec: { size: 4 } } as KubeObject);
    await waitUntil(() => informer.getIndexer().getByKey("crd/w4") !== undefined, "w4 in the cache");
    expect(informer.getIndexer().getByKey("crd/w4")?.kind).toBe("Widget");
  }, 120_000);

  test("(h) a throwing handler does not stop the informer or the other handlers", async () => {
    await ensureNamespace(client, "throwing");
    const factory = newFactory();
    const { informer } = factory.forResource(resources.configMaps, { namespace: "throwing" });
    const received: string[] = [];
    informer.addEventHandler({
      onAdd: () => {
        throw new Error("handler bug");
      },
      onUpdate: async () => {
        throw new Error("async handler bug");
      },
    });
    informer.addEventHandler({
      onAdd: (obj) => void received.push(`add ${obj.metadata?.name}`),
      onUpdate: (_old, obj) => void received.push(`update ${obj.metadata?.name}`),
    });
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal, 60_000);
    await createConfigMaps(client, "throwing", ["t1", "t2", "t3"]);
    await client.dynamic.resource(resources.configMaps, "throwing").patch("t1", { data: { changed: "yes" } }, "merge");
    await waitUntil(() => received.length === 4, "all events at the healthy handler", 30_000);
    // The three creates run concurrently, so their order is the API server's.
    expect(received.slice(0, 3).sort()).toEqual(["add t1", "add t2", "add t3"]);
    expect(received[3]).toBe("update t1");
    expect(informer.counters.handlerErrors).toBe(4);
    expect(informer.getIndexer().listKeys()).toHaveLength(3);
  }, 120_000);

  test("(i) bookmarks are requested and advance the resourceVersion of a quiet resource", async () => {
    await ensureNamespace(client, "quiet");
    const watchRequests: WatchOptions[] = [];
    const lw = client.dynamic.listerWatcher(resources.configMaps, { namespace: "quiet", metadataOnly: false });
    const informer = new SharedIndexInformer({
      list: (options, signal) => lw.list(options, signal),
      watch: (options, signal) => {
        watchRequests.push(options);
        // kube-apiserver sends a bookmark 2 s before a watch's timeout as well as about once a
        // minute: a 5 s timeout brings one in 3 s instead of up to a minute.
        return lw.watch({ ...options, timeoutSeconds: 5 }, signal);
      },
    });
    void informer.run(stop.signal);
    await waitUntil(() => informer.hasSynced() && watchRequests.length > 0, "quiet informer synced and watching");
    expect(watchRequests[0]).toMatchObject({ allowWatchBookmarks: true });
    expect(watchRequests[0]?.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(watchRequests[0]?.timeoutSeconds).toBeLessThanOrEqual(600);
    const initial = Number(informer.lastSyncResourceVersion);
    // Activity elsewhere moves etcd's revision; only a bookmark can carry it to this informer.
    await ensureNamespace(client, "noisy");
    await createConfigMaps(client, "noisy", ["n1", "n2"]);
    await waitUntil(() => Number(informer.lastSyncResourceVersion) > initial, "a bookmark advancing the resourceVersion", 60_000, 250);
    // The bookmark reaches the cache too, in order with the events (AtomicFIFO).
    await waitUntil(() => Number(informer.getIndexer().lastStoreSyncResourceVersion()) > initial, "the bookmark applied to the cache");
    expect(informer.getIndexer().list()).toHaveLength(0);
    expect(informer.counters.lists).toBe(1);
  }, 90_000);

  test("(j) typed and metadata-only informers fill their caches with a streaming list, not a LIST, and the cache is as of the list", async () => {
    await ensureNamespace(client, "streamed");
    await createConfigMaps(client, "streamed", Array.from({ length: 200 }, (_, i) => `cm-${i}`));
    /** Per informer ("full" or "metadata"): "stream", "list" or "watch" for every request, in order. */
    const requests = new Map<string, string[]>();
    const factory = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => {
        const lw = client.dynamic.listerWatcher(gvr, scope);
        const log: string[] = [];
        requests.set(scope.metadataOnly ? "metadata" : "full", log);
        return {
          list: (options, signal) => (log.push("list"), lw.list(options, signal)),
          watch: (options, signal) => (log.push(options.sendInitialEvents ? "stream" : "watch"), lw.watch(options, signal)),
        };
      },
      defaultResyncMs: 0,
    });
    factories.push(factory);
    const full = factory.forResource(resources.configMaps, { namespace: "streamed" }).informer;
    const metadata = factory.forMetadata(resources.configMaps, { namespace: "streamed" }).informer;
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal, 60_000)).toEqual({ synced: true, unsynced: [] });
    expect(Object.fromEntries(requests)).toEqual({ full: ["stream"], metadata: ["stream"] });
    const listed = await listVersions(client, resources.configMaps, "streamed");
    for (const informer of [full, metadata] as SharedIndexInformer<KubeObject>[]) {
      expect(sameVersions(cacheVersions(informer), listed)).toBe(true);
      // The stream's end-of-list bookmark carries the collection's resourceVersion: never older than any object listed.
      const cacheVersion = Number(informer.getIndexer().lastStoreSyncResourceVersion());
      expect(cacheVersion).toBeGreaterThanOrEqual(Math.max(...[...listed.values()].map(Number)));
    }
  }, 120_000);
});
