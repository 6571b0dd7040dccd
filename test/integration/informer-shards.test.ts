// Informers that cache only this process's share of the namespaces, against a real API
// server: v1.37 with the ShardedListAndWatch gate on filters by shard itself; v1.35 (the skew run)
// ignores shardSelector, so the process filters. Either way the cache holds exactly the share's
// namespaces, a growth lists only what was added (on 1.35: everything once more, filtered here),
// and a shrink drops without a list.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { DeletedFinalStateUnknown } from "../../pkg/informer/deltas.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { ListOptions, ListerWatcher, WatchOptions } from "../../pkg/kube/list-watch.ts";
import type { KubeObject, WatchEvent } from "../../pkg/kube/objects.ts";
import { KUBERNETES_MINOR } from "../controlplane/binaries.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { shardSelector } from "../../pkg/sharding/hash-range.ts";
import { waitUntil } from "../support/eventually.ts";
import { parseNamespaceShardSelector } from "../support/fake-lister-watcher.ts";
import { FakeNamespaceShare, rangesOfNamespaces } from "../support/fake-namespace-share.ts";
import { createConfigMaps, ensureNamespace, fastClient } from "./informer-fixtures.ts";

/** The gate exists from 1.36 on; the skew run's 1.35 server has none and ignores shardSelector. */
const serverFilters = KUBERNETES_MINOR >= 36;
const namespaces = ["shard-a", "shard-b", "shard-c", "shard-d", "shard-e"];
const perNamespace = 4;

/** One request the informer made, and how many objects came back for it (a watch's: until the test looks). */
type Request = ({ verb: "list"; options: ListOptions } | { verb: "watch"; options: WatchOptions }) & { objects: number };

/** Records every list and watch, and the objects each brought. */
function counting(inner: ListerWatcher, requests: Request[]): ListerWatcher {
  return {
    list: async (options, signal) => {
      const request: Request = { verb: "list", options, objects: 0 };
      requests.push(request);
      const list = await inner.list(options, signal);
      request.objects = list.items.length;
      return list;
    },
    watch: async (options, signal) => {
      const request: Request = { verb: "watch", options, objects: 0 };
      requests.push(request);
      const events = await inner.watch(options, signal);
      return (async function* (): AsyncGenerator<WatchEvent<KubeObject>> {
        for await (const event of events) {
          if (event.type !== "BOOKMARK" && event.type !== "ERROR") request.objects++;
          yield event;
        }
      })();
    },
  };
}

/** A full list: a LIST that is no probe, or a streaming list. */
const isFullList = (request: Request) => (request.verb === "list" ? request.options.limit !== 1 : request.options.sendInitialEvents === true);

let controlPlane: ControlPlane;
let client: KubeClient;
const stop = new AbortController();
let factory: SharedInformerFactory | undefined;

beforeAll(async () => {
  controlPlane = await ControlPlane.start(serverFilters ? { extraApiserverArgs: ["--feature-gates=ShardedListAndWatch=true"] } : {});
  client = await fastClient(controlPlane.kubeconfigPath);
  for (const namespace of namespaces) {
    await ensureNamespace(client, namespace);
    await createConfigMaps(client, namespace, Array.from({ length: perNamespace }, (_, i) => `cm-${i}`));
  }
}, 300_000);

afterAll(async () => {
  stop.abort();
  await factory?.shutdown();
  await controlPlane?.stop();
});

describe(`sharded informer against kube-apiserver 1.${KUBERNETES_MINOR}`, () => {
  test("a list that applied shardSelector says so in metadata.shardInfo, decoded from JSON and from protobuf", async () => {
    const selector = shardSelector("object.metadata.namespace", rangesOfNamespaces(["shard-c"]));
    for (const contentType of ["application/json", "application/vnd.kubernetes.protobuf"] as const) {
      const typed = await createKubeClient(loadClientConfig({ kubeconfig: controlPlane.kubeconfigPath }), { qps: 100, burst: 100, timeoutMs: 30_000, contentType });
      const list = await typed.dynamic.resource(resources.configMaps).list({ shardSelector: selector });
      if (serverFilters) {
        expect(list.metadata?.shardInfo?.selector).toBe(selector);
        expect(list.items.map((o) => o.metadata?.namespace)).toEqual(Array.from({ length: perNamespace }, () => "shard-c"));
      } else expect(list.metadata?.shardInfo).toBeUndefined();
    }
  });


  test("caches exactly its share; a growth lists only what was added, a shrink lists nothing", async () => {
    const requests: Request[] = [];
    const lines: string[] = [];
    const share = new FakeNamespaceShare(["shard-a", "shard-b"]);
    factory = new SharedInformerFactory({
      listerWatcherFor: (gvr, request) => counting(client.dynamic.listerWatcher(gvr, request), requests),
      defaultResyncMs: 0,
      logger: pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line).msg) }),
      sharding: { share, isNamespaced: async () => true },
    });
    const { informer } = factory.forResource(resources.configMaps);
    const deleted: string[] = [];
    informer.addEventHandler({ onDelete: (obj) => void deleted.push(obj instanceof DeletedFinalStateUnknown ? obj.key : "not a tombstone") });
    const cachedNamespaces = () => [...new Set(informer.getStore().list().map((o) => o.metadata?.namespace))].sort();
    factory.start(stop.signal);
    await waitUntil(() => factory?.hasSyncedRanges(rangesOfNamespaces(["shard-a", "shard-b"])) === true, "shard-a and shard-b synced");

    expect(cachedNamespaces()).toEqual(["shard-a", "shard-b"]);
    expect(informer.getStore().listKeys().length).toBe(2 * perNamespace);
    const expectedLine = serverFilters
      ? "the API server filters by shard"
      : "filtering by shard in this process: the API server ignores shardSelector (feature gate ShardedListAndWatch off or before 1.36)";
    expect(lines.filter((line) => line.includes("by shard"))).toEqual([expectedLine]);
    const firstList = requests.filter(isFullList);
    expect(firstList.length).toBe(1);
    if (serverFilters) {
      expect(parseNamespaceShardSelector(firstList[0]?.options.shardSelector ?? "")).toEqual(rangesOfNamespaces(["shard-a", "shard-b"]));
      expect(firstList[0]?.objects).toBe(2 * perNamespace);
    } else expect(firstList[0]?.options.shardSelector).toBeUndefined();

    // Growth: only shard-d is listed where the server filters.
    const beforeGrowth = requests.length;
    share.hold(["shard-a", "shard-b", "shard-d"]);
    await waitUntil(() => factory?.hasSyncedRanges(rangesOfNamespaces(["shard-a", "shard-b", "shard-d"])) === true, "shard-d synced");
    expect(cachedNamespaces()).toEqual(["shard-a", "shard-b", "shard-d"]);
    expect(deleted).toEqual([]);
    const growthLists = requests.slice(beforeGrowth).filter(isFullList);
    expect(growthLists.length).toBe(1);
    if (serverFilters) {
      expect(parseNamespaceShardSelector(growthLists[0]?.options.shardSelector ?? "")).toEqual(rangesOfNamespaces(["shard-d"]));
      expect(growthLists[0]?.objects).toBe(perNamespace);
      expect(informer.shardStatus?.segments).toBe(2);
    } else expect(informer.shardStatus?.segments).toBe(1);

    // A change in a held namespace arrives; one elsewhere does not.
    await createConfigMaps(client, "shard-d", ["late"]);
    await createConfigMaps(client, "shard-e", ["late"]);
    await waitUntil(() => informer.getStore().getByKey("shard-d/late") !== undefined, "shard-d/late cached");
    expect(informer.getStore().getByKey("shard-e/late")).toBeUndefined();

    // Shrink: shard-b leaves with delete notifications, and nothing is listed.
    const beforeShrink = requests.length;
    share.hold(["shard-a", "shard-d"]);
    await waitUntil(() => deleted.length === perNamespace, "shard-b dropped");
    expect(deleted.sort()).toEqual(Array.from({ length: perNamespace }, (_, i) => `shard-b/cm-${i}`));
    expect(cachedNamespaces()).toEqual(["shard-a", "shard-d"]);
    expect(factory.hasSyncedRanges(rangesOfNamespaces(["shard-b"]))).toBe(false);
    expect(requests.slice(beforeShrink).filter(isFullList)).toEqual([]);
    await createConfigMaps(client, "shard-b", ["after"]);
    await createConfigMaps(client, "shard-a", ["after"]);
    await waitUntil(() => informer.getStore().getByKey("shard-a/after") !== undefined, "shard-a/after cached");
    expect(informer.getStore().getByKey("shard-b/after")).toBeUndefined();
  }, 120_000);
});
