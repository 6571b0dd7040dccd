// The informer recovers from a restarted API server, from 410 Gone, and from a cut connection —
// with the cache exact and no lost deletes.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { DeletedFinalStateUnknown } from "../../pkg/informer/deltas.ts";
import type { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { SharedIndexInformer } from "../../pkg/informer/shared-informer.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { type ObjectOf, resources } from "../../pkg/kube/gvr.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";
import { cacheVersions, createConfigMaps, ensureNamespace, informerFactory, listVersions, sameVersions, startBehindProxy } from "./informer-fixtures.ts";

type ConfigMap = ObjectOf<typeof resources.configMaps>;

let controlPlane: ControlPlane;
/** Direct admin connection: the test's own hands. */
let admin: KubeClient;
let proxy: TcpProxy;
/** The informer's connection, through the proxy the test controls. */
let proxied: KubeClient;
let factory: SharedInformerFactory;
const stop = new AbortController();

beforeAll(async () => {
  // Without the watch cache every watch reaches etcd, so a compacted resourceVersion is 410 at once.
  ({ controlPlane, admin, proxy, proxied } = await startBehindProxy({ extraApiserverArgs: ["--watch-cache=false"] }));
}, 300_000);

afterEach(async () => {
  await factory?.shutdown();
  proxy.resume();
});

afterAll(async () => {
  stop.abort();
  await proxy?.stop();
  await controlPlane?.stop();
});

interface Recorded {
  deleted: string[];
  tombstones: string[];
}

async function watchedNamespace(namespace: string, count: number): Promise<{ informer: SharedIndexInformer<ConfigMap>; recorded: Recorded }> {
  await ensureNamespace(admin, namespace);
  await createConfigMaps(admin, namespace, Array.from({ length: count }, (_, i) => `cm-${i}`));
  factory = informerFactory(proxied);
  const { informer } = factory.forResource(resources.configMaps, { namespace });
  const recorded: Recorded = { deleted: [], tombstones: [] };
  informer.addEventHandler({
    onDelete: (obj) => {
      const name = obj instanceof DeletedFinalStateUnknown ? obj.key.split("/")[1] : obj.metadata?.name;
      recorded.deleted.push(name ?? "?");
      if (obj instanceof DeletedFinalStateUnknown) recorded.tombstones.push(name ?? "?");
    },
  });
  factory.start(stop.signal);
  expect((await factory.waitForCacheSync(stop.signal, 60_000)).synced).toBe(true);
  return { informer, recorded };
}

async function cacheMatchesList(informer: SharedIndexInformer<ConfigMap>, namespace: string): Promise<void> {
  await waitUntil(
    async () => sameVersions(cacheVersions(informer), await listVersions(admin, resources.configMaps, namespace)),
    `cache of ${namespace} equal to LIST`,
    120_000,
    250,
  );
}

describe("informer recovery against a real API server", () => {
  test("(c) kube-apiserver killed and restarted mid-stream: cache reconverges, deletes made meanwhile arrive as tombstones", async () => {
    const { informer, recorded } = await watchedNamespace("restart", 100);
    // The informer cannot reach the API server while the test changes things behind its back.
    proxy.pause("refuse");
    await controlPlane.stopApiserver({ signal: "SIGKILL" });
    await controlPlane.startApiserver();
    const gone = Array.from({ length: 30 }, (_, i) => `cm-${i}`);
    for (const name of gone) await admin.dynamic.resource(resources.configMaps, "restart").delete(name);
    await createConfigMaps(admin, "restart", ["late-1", "late-2"]);
    await controlPlane.compactEtcd();
    proxy.resume();
    await cacheMatchesList(informer, "restart");
    expect(recorded.deleted.sort()).toEqual([...gone].sort());
    // The old resourceVersion was compacted away, so only a relist could find these deletes.
    expect(recorded.tombstones.sort()).toEqual([...gone].sort());
    expect(informer.counters.relists).toBeGreaterThanOrEqual(1);
  }, 300_000);

  test("(d) a forced 410 (watch from a compacted resourceVersion) relists and leaves the cache exact", async () => {
    const { informer } = await watchedNamespace("gone", 50);
    proxy.pause("refuse");
    const configMaps = admin.dynamic.resource(resources.configMaps, "gone");
    await configMaps.delete("cm-1");
    await configMaps.patch("cm-2", { data: { changed: "yes" } }, "merge");
    await createConfigMaps(admin, "gone", ["new-1"]);
    await controlPlane.compactEtcd();
    const relistsBefore = informer.counters.relists;
    proxy.resume();
    await cacheMatchesList(informer, "gone");
    expect(informer.counters.relists).toBe(relistsBefore + 1);
  }, 300_000);

  test("(e) a cut TCP connection: the watch resumes from the last resourceVersion without a relist", async () => {
    const { informer } = await watchedNamespace("cut", 20);
    const before = { ...informer.counters };
    proxy.cutAll();
    await createConfigMaps(admin, "cut", ["after-cut-1", "after-cut-2"]);
    await admin.dynamic.resource(resources.configMaps, "cut").delete("cm-3");
    await cacheMatchesList(informer, "cut");
    expect(informer.counters.lists).toBe(before.lists);
    expect(informer.counters.relists).toBe(before.relists);
    expect(informer.counters.watches).toBeGreaterThan(before.watches);
  }, 300_000);
});
