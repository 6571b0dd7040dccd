// Streaming lists against a kube-apiserver that refuses them (its WatchList feature gate off, as
// 1.33 ships): each full list the informer tries as a stream is done by LIST instead, quietly,
// and the next one — the relist after a 410 — is tried as a stream again (client-go 1.35+).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";
import { cacheVersions, createConfigMaps, ensureNamespace, listVersions, sameVersions, startBehindProxy } from "./informer-fixtures.ts";

let controlPlane: ControlPlane;
let admin: KubeClient;
let proxy: TcpProxy;
let proxied: KubeClient;
let factory: SharedInformerFactory | undefined;
const stop = new AbortController();

beforeAll(async () => {
  // Without the watch cache a watch from a compacted resourceVersion is 410 at once.
  ({ controlPlane, admin, proxy, proxied } = await startBehindProxy({ extraApiserverArgs: ["--feature-gates=WatchList=false", "--watch-cache=false"] }));
}, 300_000);

afterAll(async () => {
  stop.abort();
  await factory?.shutdown();
  await proxy?.stop();
  await controlPlane?.stop();
});

describe("an API server that refuses streaming lists", () => {
  test("each list is tried as a stream, refused, and done by LIST at once; the informer reports no error", async () => {
    const namespace = "refused";
    await ensureNamespace(admin, namespace);
    await createConfigMaps(admin, namespace, Array.from({ length: 20 }, (_, i) => `cm-${i}`));
    /** "stream", "list" or "watch", for every request the informer made, in order. */
    const requests: string[] = [];
    factory = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => {
        const lw = proxied.dynamic.listerWatcher(gvr, scope);
        return {
          list: (options, signal) => (requests.push("list"), lw.list(options, signal)),
          watch: (options, signal) => (requests.push(options.sendInitialEvents ? "stream" : "watch"), lw.watch(options, signal)),
        };
      },
      defaultResyncMs: 0,
    });
    const { informer } = factory.forResource(resources.configMaps, { namespace });
    factory.start(stop.signal);
    expect((await factory.waitForCacheSync(stop.signal, 60_000)).synced).toBe(true);
    await waitUntil(() => requests.length === 3, "stream, list, watch");
    expect(requests).toEqual(["stream", "list", "watch"]);
    expect(informer.lastListError).toBeUndefined();
    expect(informer.counters).toMatchObject({ errors: 0, lists: 1 });

    // A relist: the informer is cut off while objects change and etcd forgets the old revisions.
    proxy.pause("refuse");
    await admin.dynamic.resource(resources.configMaps, namespace).delete("cm-1");
    await createConfigMaps(admin, namespace, ["late"]);
    await controlPlane.compactEtcd();
    proxy.resume();
    await waitUntil(
      async () => sameVersions(cacheVersions(informer), await listVersions(admin, resources.configMaps, namespace)),
      "cache equal to LIST after the relist",
      60_000,
      250,
    );
    const fullLists = requests.filter((r) => r !== "watch");
    expect(fullLists).toEqual(["stream", "list", "stream", "list"]);
    expect(informer.counters).toMatchObject({ lists: 2, relists: 1 });
  }, 120_000);
});
