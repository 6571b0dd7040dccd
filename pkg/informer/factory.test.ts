import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { type GroupVersionResource, gvrString, resources } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ListerWatcherScope } from "../kube/dynamic-client.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import { parseSelector, selectorFromLabelSelector } from "../labels/selector.ts";
import { eventually } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { obj } from "../../test/support/objects.ts";
import { SharedInformerFactory } from "./factory.ts";
import { Indexer } from "./indexer.ts";
import type { InformerIdentity } from "./metrics.ts";
import { namespaceIndex, namespaceIndexName } from "./index-funcs.ts";
import { Lister } from "./lister.ts";

const widgets: GroupVersionResource = { group: "example.com", version: "v1alpha1", resource: "widgets" };

function setup(lwFor?: (gvr: GroupVersionResource) => ListerWatcher) {
  const clock = new FakeClock();
  const requests: { gvr: GroupVersionResource; request: ListerWatcherScope }[] = [];
  const factory = new SharedInformerFactory({
    listerWatcherFor: (gvr, request) => {
      requests.push({ gvr, request });
      return lwFor?.(gvr) ?? new FakeListerWatcher([obj("ns/a")]);
    },
    defaultResyncMs: 0,
    clock,
    informerOptions: { random: () => 0 },
  });
  return { clock, factory, requests };
}

/** Drives waitForCacheSync's 100 ms polls on the fake clock until it answers. */
async function waitForSync(clock: FakeClock, factory: SharedInformerFactory, timeoutMs?: number) {
  let result: Awaited<ReturnType<SharedInformerFactory["waitForCacheSync"]>> | undefined;
  const waiting = factory.waitForCacheSync(new AbortController().signal, timeoutMs).then((r) => (result = r));
  while (!result) await clock.advance(100);
  await waiting;
  return result;
}

describe("SharedInformerFactory", () => {
  test("one informer per resource and scope, shared by every caller", () => {
    const { factory, requests } = setup();
    const pods = factory.forResource(resources.pods);
    expect(factory.forResource(resources.pods).informer as unknown).toBe(pods.informer);
    expect(factory.forResource(resources.pods).lister).toBe(pods.lister);
    expect(factory.forResource(resources.pods, { namespace: "kube-system" }).informer).not.toBe(pods.informer);
    expect(factory.forResource(resources.pods, { labelSelector: "app=x" }).informer).not.toBe(pods.informer);
    expect(factory.forMetadata(resources.pods).informer).not.toBe(pods.informer);
    expect(factory.forResource(widgets).informer).toBe(factory.forResource(widgets).informer);
    expect(requests.map(({ request: { keptFields: _, heldVersions: __, ...scope } }) => scope)).toEqual([
      { namespace: undefined, labelSelector: undefined, fieldSelector: undefined, metadataOnly: false },
      { namespace: "kube-system", labelSelector: undefined, fieldSelector: undefined, metadataOnly: false },
      { namespace: undefined, labelSelector: "app=x", fieldSelector: undefined, metadataOnly: false },
      { namespace: undefined, labelSelector: undefined, fieldSelector: undefined, metadataOnly: true },
      { namespace: undefined, labelSelector: undefined, fieldSelector: undefined, metadataOnly: false },
    ]);
  });

  test("typed, dynamic and metadata-only informers all fill their caches with a streaming list", async () => {
    const collections = new Map<string, FakeListerWatcher>();
    const { clock, factory } = setup((gvr) => {
      const lw = new FakeListerWatcher([obj("ns/a")]);
      collections.set(gvr.resource, lw);
      return lw;
    });
    factory.forResource(resources.pods);
    factory.forResource(widgets);
    factory.forMetadata(resources.replicaSets);
    const stop = new AbortController();
    factory.start(stop.signal);
    expect((await waitForSync(clock, factory)).synced).toBe(true);
    for (const [resource, lw] of collections) {
      expect({ resource, lists: lw.listCalls.length, first: lw.watchCalls[0]?.sendInitialEvents }).toEqual({ resource, lists: 0, first: true });
    }
    expect([...collections.keys()].sort()).toEqual(["pods", "replicasets", "widgets"]);
    await factory.shutdown();
  });

  test("the factory's namespace and tweakListOptions apply to every informer", () => {
    const requests: ListerWatcherScope[] = [];
    const factory = new SharedInformerFactory({
      listerWatcherFor: (_gvr, request) => {
        requests.push(request);
        return new FakeListerWatcher();
      },
      defaultResyncMs: 0,
      namespace: "team-a",
      tweakListOptions: (selectors) => ({ ...selectors, labelSelector: "managed=true" }),
    });
    factory.forResource(resources.configMaps);
    factory.forResource(resources.leases, { namespace: "" });
    expect(requests.map(({ keptFields: _, heldVersions: __, ...scope }) => scope)).toEqual([
      { namespace: "team-a", labelSelector: "managed=true", fieldSelector: undefined, metadataOnly: false },
      { namespace: undefined, labelSelector: "managed=true", fieldSelector: undefined, metadataOnly: false },
    ]);
  });

  test("a lister-watcher learns at start what the informer keeps, for a decoder that builds only that", () => {
    const { factory, requests } = setup();
    factory.forResource(resources.pods, {}, { fields: ["status.phase"] });
    factory.forResource(resources.configMaps);
    expect(requests[0]?.request.keptFields?.()).toBeUndefined();
    factory.start(new AbortController().signal);
    const kept = requests[0]?.request.keptFields?.();
    expect([...(kept?.keys() ?? [])].sort()).toEqual(["apiVersion", "kind", "metadata", "status"]);
    expect(kept?.get("status")).toEqual(new Map([["phase", true]]));
    expect(requests[1]?.request.keptFields?.()).toBeUndefined();
  });

  test("a lister-watcher can ask for the versions the cache holds: none while it is empty, then each cached object in its own version", async () => {
    const { clock, factory, requests } = setup();
    const { informer } = factory.forResource(resources.pods);
    const heldVersions = requests[0]?.request.heldVersions;
    expect(heldVersions?.()).toBeUndefined();
    factory.start(new AbortController().signal);
    await waitForSync(clock, factory, 1000);
    const cached = informer.getIndexer().getByKey("ns/a");
    const held = heldVersions?.();
    expect(cached).toBeDefined();
    expect(held?.("ns", "a", cached?.metadata?.resourceVersion ?? "")).toBe(cached as KubeObject);
    expect(held?.("ns", "a", "another version")).toBeUndefined();
    expect(held?.("other", "a", cached?.metadata?.resourceVersion ?? "")).toBeUndefined();
  });

  test("start runs the informers requested so far; waitForCacheSync names those that did not sync", async () => {
    // Never answers, but honours its abort signal as the real client does.
    const hang = (signal?: AbortSignal) => new Promise<never>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    const stuck: ListerWatcher = { list: (_options, signal) => hang(signal), watch: (_options, signal) => hang(signal) };
    const { clock, factory } = setup((gvr) => (gvr.resource === "leases" ? stuck : new FakeListerWatcher([obj("ns/a")])));
    const controller = new AbortController();
    factory.forResource(resources.pods);
    factory.start(controller.signal);
    expect(await waitForSync(clock, factory, 1000)).toEqual({ synced: true, unsynced: [] });

    factory.forResource(resources.leases);
    factory.forResource(resources.replicaSets, { namespace: "prod" });
    expect(factory.forResource(resources.leases).informer.isStarted).toBe(false);
    factory.start(controller.signal);
    expect(factory.forResource(resources.leases).informer.isStarted).toBe(true);
    const result = await waitForSync(clock, factory, 1000);
    expect(result).toEqual({ synced: false, unsynced: ["leases.v1.coordination.k8s.io"] });
    expect(factory.forResource(resources.replicaSets, { namespace: "prod" }).informer.hasSynced()).toBe(true);
    await factory.shutdown();
  });

  test("shutdown stops every informer and waits for them", async () => {
    const lws: FakeListerWatcher[] = [];
    const { factory } = setup(() => {
      const lw = new FakeListerWatcher([obj("ns/a")]);
      lws.push(lw);
      return lw;
    });
    factory.forResource(resources.pods);
    factory.forResource(widgets);
    factory.start(new AbortController().signal);
    await eventually(() => lws.every((lw) => lw.openWatches === 1), "watching");
    await factory.shutdown();
    expect(lws.map((lw) => lw.openWatches)).toEqual([0, 0]);
    factory.forResource(resources.configMaps);
    factory.start(new AbortController().signal);
    expect(factory.forResource(resources.configMaps).informer.isStarted).toBe(false);
  });

  test("listers read the informer's cache", async () => {
    const { clock, factory } = setup(
      () =>
        new FakeListerWatcher([
          obj("ns1/a", { labels: { app: "web" } }),
          obj("ns1/b", { labels: { app: "db" } }),
          obj("ns2/c", { labels: { app: "web" } }),
        ]),
    );
    const { lister } = factory.forResource(resources.pods);
    factory.start(new AbortController().signal);
    await waitForSync(clock, factory);
    expect(lister.list()).toHaveLength(3);
    expect(lister.list(parseSelector("app=web")).map((p) => p.metadata?.name).sort()).toEqual(["a", "c"]);
    expect(lister.namespace("ns1").list().map((p) => p.metadata?.name).sort()).toEqual(["a", "b"]);
    expect(lister.namespace("ns1").list(selectorFromLabelSelector({ matchLabels: { app: "db" } }))[0]?.metadata?.name).toBe("b");
    expect(lister.namespace("ns2").get("c")?.metadata?.name).toBe("c");
    expect(lister.namespace("ns2").get("a")).toBeUndefined();
    await factory.shutdown();
  });

  test("metrics: the first informer of a resource reports them under the factory's name; a removed one frees the resource", async () => {
    const reporters: string[] = [];
    const ignored = { set: () => {}, observe: () => {} };
    const provider = {
      newQueuedItemMetric: ({ name, resource }: InformerIdentity) => (reporters.push(`${name} ${gvrString(resource)}`), ignored),
      newProcessingLatencyMetric: () => ignored,
      newStoreResourceVersionMetric: () => ignored,
    };
    const factory = new SharedInformerFactory({
      listerWatcherFor: () => new FakeListerWatcher(),
      defaultResyncMs: 0,
      metrics: { provider, name: "kube-loom" },
    });
    factory.forResource(resources.pods);
    factory.forResource(resources.pods, { namespace: "other" });
    factory.forMetadata(resources.pods);
    factory.forResource(widgets);
    expect(reporters).toEqual(["kube-loom pods.v1", "kube-loom widgets.v1alpha1.example.com"]);
    expect(await factory.remove(resources.pods)).toBe(true);
    factory.forResource(resources.pods);
    expect(reporters).toEqual(["kube-loom pods.v1", "kube-loom widgets.v1alpha1.example.com", "kube-loom pods.v1"]);
    await factory.shutdown();
  });
});

describe("SharedInformerFactory: what an informer keeps", () => {
  const fat = () =>
    new FakeListerWatcher([obj("ns/a", { managedFields: [{ manager: "kubelet" }] }, { spec: { nodeName: "n1", containers: [{ name: "c" }] }, status: { phase: "Running", hostIP: "10.0.0.1" } })]);

  async function started(factory: SharedInformerFactory, clock: FakeClock) {
    factory.start(new AbortController().signal);
    await waitForSync(clock, factory);
  }

  test("the union of the fields its readers declared, with the metadata; whole objects when one reader declares none", async () => {
    const { clock, factory } = setup(fat);
    const pods = factory.forResource(resources.pods, {}, { fields: ["spec.nodeName"] });
    factory.forResource(resources.pods, {}, { fields: ["status.phase"] });
    const widgetObjects = factory.forResource(widgets, {}, { fields: ["status.phase"] });
    factory.forResource(widgets);
    await started(factory, clock);
    const resourceVersion = pods.lister.namespace("ns").get("a")?.metadata?.resourceVersion;
    expect(pods.lister.namespace("ns").get("a") as KubeObject | undefined).toEqual(obj("ns/a", { resourceVersion }, { spec: { nodeName: "n1" }, status: { phase: "Running" } }));
    expect(widgetObjects.lister.namespace("ns").get("a")).toEqual(
      obj("ns/a", { resourceVersion }, { spec: { nodeName: "n1", containers: [{ name: "c" }] }, status: { phase: "Running", hostIP: "10.0.0.1" } }),
    );
    await factory.shutdown();
  });

  test("fields: [] keeps apiVersion, kind and metadata only; no fields at all keeps whole objects", async () => {
    const { clock, factory } = setup(fat);
    const pods = factory.forResource(resources.pods, {}, { fields: [] });
    const widgetObjects = factory.forResource(widgets);
    await started(factory, clock);
    const resourceVersion = pods.lister.namespace("ns").get("a")?.metadata?.resourceVersion;
    expect(pods.lister.namespace("ns").get("a") as KubeObject | undefined).toEqual(obj("ns/a", { resourceVersion }));
    expect(widgetObjects.lister.namespace("ns").get("a")).toMatchObject({ spec: { nodeName: "n1", containers: [{ name: "c" }] }, status: { phase: "Running", hostIP: "10.0.0.1" } });
    await factory.shutdown();
  });

  test("once started, a cache does not widen: a field or the whole object asked for later is refused, naming what is kept", async () => {
    const { clock, factory } = setup(fat);
    factory.forResource(resources.pods, {}, { fields: ["spec.nodeName", "status"] });
    await started(factory, clock);
    expect(factory.forResource(resources.pods, {}, { fields: ["status.phase"] }).lister.namespace("ns").get("a")?.metadata?.name).toBe("a");
    expect(() => factory.forResource(resources.pods, {}, { fields: ["spec.containers", "status.phase"] })).toThrow(
      "pods.v1 started already, keeping only apiVersion, kind, metadata, spec.nodeName, status; spec.containers declared too late: declare every field before the informers start",
    );
    expect(() => factory.forResource(resources.pods)).toThrow("pods.v1 started already, keeping only apiVersion, kind, metadata, spec.nodeName, status; the whole object was asked for too late");
    expect(() => factory.forResource(widgets, {}, { fields: ["spec..x"] })).toThrow('invalid field path "spec..x"');
    expect(factory.list()).toHaveLength(1);
    await factory.shutdown();
  });

  test("a metadata reader shares the informer of the objects when one is requested before the start, in either order; else it lists metadata only", async () => {
    const { clock, factory, requests } = setup();
    const podsMetadata = factory.forMetadataReader(resources.pods);
    const pods = factory.forResource(resources.pods, {}, { fields: ["status.phase"] });
    const replicaSets = factory.forResource(resources.replicaSets);
    const leases = factory.forMetadataReader(resources.leases);
    expect(podsMetadata.informer as unknown).toBe(pods.informer);
    expect(factory.forMetadataReader(resources.replicaSets).informer as unknown).toBe(replicaSets.informer);
    await started(factory, clock);
    expect(factory.forMetadataReader(resources.leases).informer).toBe(leases.informer);
    // Named for what each lists.
    expect([pods.informer.name, leases.informer.name]).toEqual(["pods.v1", "leases.v1.coordination.k8s.io{metadataOnly}"]);
    expect(requests.map(({ gvr, request }) => `${gvr.resource} ${request.metadataOnly ? "metadata" : "objects"}`)).toEqual([
      "pods objects",
      "replicasets objects",
      "leases metadata",
    ]);
    await factory.shutdown();
  });

  test("objects asked for after a metadata-only informer started get an informer of their own beside it", async () => {
    const { clock, factory, requests } = setup();
    const metadata = factory.forMetadataReader(widgets);
    await started(factory, clock);
    const objects = factory.forResource(widgets);
    expect(objects.informer).not.toBe(metadata.informer);
    expect(objects.informer.name).toBe("widgets.v1alpha1.example.com{objects}");
    expect(factory.forResource(widgets).informer).toBe(objects.informer);
    expect(factory.forMetadataReader(widgets).informer).toBe(metadata.informer);
    factory.start(new AbortController().signal);
    expect(requests.map(({ request }) => request.metadataOnly)).toEqual([true, false]);
    await factory.shutdown();
  });
});

describe("Lister", () => {
  test("get finds cluster-scoped objects; namespace lists work without the namespace index too", () => {
    const plain = new Indexer();
    const indexed = new Indexer({ [namespaceIndexName]: namespaceIndex });
    for (const indexer of [plain, indexed]) {
      indexer.add(obj("node-1"));
      indexer.add(obj("ns/a"));
      const lister = new Lister(indexer);
      expect(lister.get("node-1")?.metadata?.name).toBe("node-1");
      expect(lister.namespace("ns").list().map((o) => o.metadata?.name)).toEqual(["a"]);
      expect(lister.namespace("").list().map((o) => o.metadata?.name)).toEqual(["node-1"]);
    }
  });
});
