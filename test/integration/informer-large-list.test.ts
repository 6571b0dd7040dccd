// Lists at scale against a real API server: a list whose transfer outlasts the client's
// request timeout still syncs (the timeout bounds stalls, not the transfer), whether it comes as
// a LIST or as a streaming list, and the server's "Too large resource version" answer is
// recognised as such.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isTooLargeResourceVersion } from "../../pkg/informer/reflector-errors.ts";
import type { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";
import { ensureNamespace, inParallel, informerFactory, startBehindProxy } from "./informer-fixtures.ts";

let controlPlane: ControlPlane;
let admin: KubeClient;
let proxy: TcpProxy;
const factories: SharedInformerFactory[] = [];
const stop = new AbortController();

beforeAll(async () => {
  ({ controlPlane, admin, proxy } = await startBehindProxy());
}, 300_000);

afterAll(async () => {
  stop.abort();
  await Promise.all(factories.map((f) => f.shutdown()));
  await proxy?.stop();
  await controlPlane?.stop();
});

describe("lists at scale against a real API server", () => {
  const namespace = "big-list";
  const objects = 100;
  let created: Promise<void> | undefined;

  /** 100 ConfigMaps of 512 KiB each, made once for every test that needs them. */
  function bigCollection(): Promise<void> {
    created ??= (async () => {
      await ensureNamespace(admin, namespace);
      // Random payloads: the API server gzips big responses, and repeated characters would shrink to nothing.
      const configMaps = admin.dynamic.resource(resources.configMaps, namespace);
      let newest = 0;
      await inParallel(Array.from({ length: objects }, (_, i) => `cm-${i}`), 8, async (name) => {
        const made = await configMaps.create({ metadata: { name }, data: { payload: randomText(512 * 1024) } });
        newest = Math.max(newest, Number(made.metadata?.resourceVersion));
      });
      // A first LIST (resourceVersion "0") is whatever the watch cache holds: let it catch up.
      await configMaps.list({ resourceVersion: String(newest) });
    })();
    return created;
  }

  for (const useWatchList of [false, true]) {
    test(`a 50 MiB ${useWatchList ? "streaming list" : "LIST"} over a link too slow to carry it within the request timeout still syncs`, async () => {
      await bigCollection();
      // Even gzipped (base64 shrinks to about 3/4), 50 MiB at 6 MiB/s takes over 6 s; the informer's client gives up on a request after 2 s.
      const timeoutMs = 2_000;
      const rate = 6 * 2 ** 20;
      proxy.throttle(rate);
      const bytesBefore = proxy.bytesToClients;
      const slowLink = await createKubeClient(loadClientConfig({ kubeconfig: controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}` }) }), {
        qps: 50,
        burst: 100,
        timeoutMs,
        contentType: testContentType(),
      });
      const factory = informerFactory(slowLink, { useWatchList });
      factories.push(factory);
      const { informer } = factory.forResource(resources.configMaps, { namespace });
      factory.start(stop.signal);
      const result = await factory.waitForCacheSync(stop.signal, 120_000);
      const lastError = informer.lastListError instanceof Error ? informer.lastListError.message : undefined;
      expect({ synced: result.synced, lastError }).toEqual({ synced: true, lastError: undefined });
      expect(informer.counters).toMatchObject({ lists: 1, watches: 1, errors: 0 });
      // The list went through the throttle, and what it carried takes well over the timeout at that rate.
      expect((proxy.bytesToClients - bytesBefore) / rate).toBeGreaterThan((2 * timeoutMs) / 1000);
      expect(informer.getIndexer().listKeys()).toHaveLength(objects);
    }, 300_000);
  }

  test("listing at a resourceVersion the server has not reached is answered with Too large resource version", async () => {
    const configMaps = admin.dynamic.resource(resources.configMaps, "default");
    const current = Number((await configMaps.list({ limit: 1 })).metadata?.resourceVersion);
    const err = await configMaps.list({ resourceVersion: String(current + 1_000_000) }).catch((e: unknown) => e);
    expect(isTooLargeResourceVersion(err)).toBe(true);
  }, 60_000);
});

/** `length` characters of base64 from random bytes: nearly incompressible. */
function randomText(length: number): string {
  const bytes = new Uint8Array(Math.ceil((length * 3) / 4));
  for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return Buffer.from(bytes).toString("base64").slice(0, length);
}
