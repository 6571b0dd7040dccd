import { describe, expect, test } from "bun:test";
import pino from "pino";
import { type GroupVersionResource, gvrString, resources } from "../kube/gvr.ts";
import { eventually } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { FakeNamespaceShare, rangesOfNamespaces } from "../../test/support/fake-namespace-share.ts";
import { obj } from "../../test/support/objects.ts";
import { SharedInformerFactory } from "./factory.ts";

const widgets: GroupVersionResource = { group: "example.com", version: "v1alpha1", resource: "widgets" };
const gadgets: GroupVersionResource = { group: "example.com", version: "v1alpha1", resource: "gadgets" };

/** A factory whose every resource has objects in n1…n3 (cluster-scoped ones: names only), holding n1 when sharded. */
function setup(options: { sharded: boolean; serverFilters?: boolean; lookupFails?: boolean }) {
  const lws = new Map<string, FakeListerWatcher>();
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line).msg) });
  const share = new FakeNamespaceShare(["n1"]);
  const askedScope: string[] = [];
  const factory = new SharedInformerFactory({
    listerWatcherFor: (gvr, request) => {
      const clusterScoped = gvr.resource === "namespaces";
      const lw = new FakeListerWatcher(clusterScoped ? [obj("n1"), obj("n2")] : [obj("n1/a"), obj("n2/b"), obj("n3/c")]);
      lw.shardSelectorSupport = options.serverFilters ? "applied" : "ignored";
      lws.set(`${gvrString(gvr)}${request.namespace ? `/${request.namespace}` : ""}`, lw);
      return lw;
    },
    defaultResyncMs: 0,
    logger,
    informerOptions: { random: () => 0, reflector: { useWatchList: false } },
    ...(options.sharded && {
      sharding: {
        share,
        isNamespaced: async (gvr: GroupVersionResource) => {
          askedScope.push(gvr.resource);
          if (options.lookupFails) throw new Error("discovery unavailable");
          return gvr.resource === "widgets";
        },
      },
    }),
  });
  const keysOf = (informer: { getStore(): { listKeys(): string[] } }) => informer.getStore().listKeys().sort();
  return { factory, lws, lines, share, askedScope, keysOf };
}

describe("SharedInformerFactory with a namespace share", () => {
  test("shards namespaced resources across all namespaces only; says once whether the server filters", async () => {
    const { factory, lws, lines, askedScope, keysOf } = setup({ sharded: true, serverFilters: true });
    const pods = factory.forResource(resources.pods);
    const inOne = factory.forResource(resources.pods, { namespace: "n2" });
    const namespaces = factory.forResource(resources.namespaces);
    const widgetInformer = factory.forResource(widgets);
    const gadgetInformer = factory.forResource(gadgets);
    const stop = new AbortController();
    factory.start(stop.signal);
    await eventually(() => factory.list().every((informer) => informer.hasSynced()), "synced");
    expect(keysOf(pods.informer)).toEqual(["n1/a"]);
    expect(keysOf(widgetInformer.informer)).toEqual(["n1/a"]);
    // Cluster-scoped, given a namespace, or not namespaced by discovery: everything.
    expect(keysOf(namespaces.informer)).toEqual(["n1", "n2"]);
    expect(keysOf(inOne.informer)).toEqual(["n1/a", "n2/b", "n3/c"]);
    expect(keysOf(gadgetInformer.informer)).toEqual(["n1/a", "n2/b", "n3/c"]);
    // Built-in resources know their scope; the others are looked up.
    expect(askedScope.sort()).toEqual(["gadgets", "widgets"]);
    expect(pods.informer.shardStatus).toMatchObject({ serverFilters: true, segments: 1 });
    expect(namespaces.informer.shardStatus).toBeUndefined();
    expect(lines.filter((line) => line.includes("shard"))).toEqual(["the API server filters by shard"]);
    // One probe (a LIST of one item with a selector of everything), by the first sharded informer only.
    const probes = [...lws.values()].flatMap((lw) => lw.listCalls).filter((call) => call.limit === 1 && call.shardSelector);
    expect(probes.length).toBe(1);
    expect(lws.get("namespaces.v1")?.listCalls.every((call) => call.shardSelector === undefined)).toBe(true);
    stop.abort();
    await factory.shutdown();
  });

  test("hasSyncedRanges holds once every sharded informer listed the ranges", async () => {
    const { factory, share } = setup({ sharded: true, serverFilters: true });
    factory.forResource(resources.pods);
    factory.forResource(resources.replicaSets);
    factory.forResource(resources.namespaces);
    const stop = new AbortController();
    factory.start(stop.signal);
    await eventually(() => factory.hasSyncedRanges(rangesOfNamespaces(["n1"])), "n1 synced");
    expect(factory.hasSyncedRanges(rangesOfNamespaces(["n2"]))).toBe(false);
    share.hold(["n1", "n2"]);
    expect(factory.hasSyncedRanges(rangesOfNamespaces(["n2"]))).toBe(false);
    await eventually(() => factory.hasSyncedRanges(rangesOfNamespaces(["n1", "n2"])), "n2 synced");
    stop.abort();
    await factory.shutdown();
  });

  test("says when the API server ignores the selector, and filters by itself", async () => {
    const { factory, lines, keysOf } = setup({ sharded: true, serverFilters: false });
    const pods = factory.forResource(resources.pods);
    factory.forResource(resources.replicaSets);
    const stop = new AbortController();
    factory.start(stop.signal);
    await eventually(() => factory.list().every((informer) => informer.hasSynced()), "synced");
    expect(keysOf(pods.informer)).toEqual(["n1/a"]);
    expect(lines.filter((line) => line.includes("shard"))).toEqual([
      "filtering by shard in this process: the API server ignores shardSelector (feature gate ShardedListAndWatch off or before 1.36)",
    ]);
    stop.abort();
    await factory.shutdown();
  });

  test("a probe that fails is asked again by the next informer; meanwhile the informer filters by itself", async () => {
    const { factory, lws, lines, keysOf } = setup({ sharded: true, serverFilters: true });
    const pods = factory.forResource(resources.pods);
    const stop = new AbortController();
    const podsLw = () => lws.get("pods.v1") as FakeListerWatcher;
    podsLw().failNextList(new Error("connection refused"));
    factory.start(stop.signal);
    await eventually(() => pods.informer.hasSynced(), "pods synced");
    expect(keysOf(pods.informer)).toEqual(["n1/a"]);
    expect(pods.informer.shardStatus?.serverFilters).toBe(false);
    const replicaSets = factory.forResource(resources.replicaSets);
    factory.start(stop.signal);
    await eventually(() => replicaSets.informer.hasSynced(), "replicasets synced");
    expect(replicaSets.informer.shardStatus?.serverFilters).toBe(true);
    expect(lines.filter((line) => line.includes("by shard"))).toEqual([
      "could not tell whether the API server filters by shard; filtering in this process",
      "the API server filters by shard",
    ]);
    stop.abort();
    await factory.shutdown();
  });

  test("a resource whose scope cannot be looked up is cached whole", async () => {
    const { factory, keysOf } = setup({ sharded: true, serverFilters: true, lookupFails: true });
    const widgetInformer = factory.forResource(widgets);
    const stop = new AbortController();
    factory.start(stop.signal);
    await eventually(() => widgetInformer.informer.hasSynced(), "synced");
    expect(keysOf(widgetInformer.informer)).toEqual(["n1/a", "n2/b", "n3/c"]);
    expect(widgetInformer.informer.shardStatus).toBeUndefined();
    stop.abort();
    await factory.shutdown();
  });

  test("without a share, nothing more is asked: no probe, no selector", async () => {
    const { factory, lws, keysOf } = setup({ sharded: false });
    const pods = factory.forResource(resources.pods);
    const stop = new AbortController();
    factory.start(stop.signal);
    await eventually(() => pods.informer.hasSynced(), "synced");
    expect(keysOf(pods.informer)).toEqual(["n1/a", "n2/b", "n3/c"]);
    expect(lws.get("pods.v1")?.listCalls).toEqual([{ resourceVersion: "0", limit: 500 }]);
    expect(factory.hasSyncedRanges(rangesOfNamespaces(["n3"]))).toBe(true);
    stop.abort();
    await factory.shutdown();
  });
});
