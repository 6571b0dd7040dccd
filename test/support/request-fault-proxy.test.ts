// The fault proxy itself, against a real API server: a cut answer leaves the write done and the
// client with an error; a hold delays only the matching connection's answers; a fault window
// answers in the server's stead (429, 500), late, or spoils watches (garbage between events,
// a cut inside one, a stall), on the JSON and the protobuf wire, and counts what it faulted.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { isExpectedError } from "../../pkg/errors/expected-error.ts";
import { ApiError, DecodeError } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createFetch, type Fetch } from "../../pkg/kube/transport.ts";
import type { KubeObject, WatchEvent } from "../../pkg/kube/objects.ts";
import type { WatchStream } from "../../pkg/kube/watch-stream.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { type FaultWindow, type FaultWindowOptions, type RequestFault, RequestFaultProxy, watchRequests } from "./request-fault-proxy.ts";

let controlPlane: ControlPlane;
let proxy: RequestFaultProxy;
let direct: KubeClient;
let proxied: KubeClient;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  proxy = await RequestFaultProxy.inFrontOf(controlPlane);
  direct = await fastClient(controlPlane.kubeconfigPath);
  proxied = await fastClient(controlPlane.writeKubeconfig({ server: proxy.url }));
}, 300_000);

afterAll(async () => {
  await proxy?.stop();
  await controlPlane?.stop();
});

const configMapCreates = { method: "POST", path: /^\/api\/v1\/namespaces\/default\/configmaps(\?|$)/ };

describe("RequestFaultProxy", () => {
  test("forwards requests and counts them by kind", async () => {
    await proxied.dynamic.resource(resources.configMaps, "default").create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "passed-through" } });
    expect((await direct.dynamic.resource(resources.configMaps, "default").get("passed-through")).metadata?.name).toBe("passed-through");
    expect(proxy.requestCount(configMapCreates)).toBe(1);
  });

  test("a cut answer: the API server did the write, the client got an error and no object", async () => {
    let forwarded = false;
    const cut = proxy.cutNextAnswer(configMapCreates, () => (forwarded = true));
    const create = proxied.dynamic.resource(resources.configMaps, "default").create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "answer-cut" } });
    await expect(create).rejects.toThrow();
    await cut;
    expect(forwarded).toBe(true);
    expect((await direct.dynamic.resource(resources.configMaps, "default").get("answer-cut")).metadata?.name).toBe("answer-cut");
  });

  test("a hold delays the answers of matching requests until released, and only theirs", async () => {
    const release = proxy.holdAnswers({ method: "GET", path: /^\/api\/v1\/namespaces\/default\/configmaps\/answer-cut/ });
    const started = performance.now();
    const held = proxied.dynamic.resource(resources.configMaps, "default").get("answer-cut").then(() => performance.now() - started);
    // Another request on another connection goes through meanwhile.
    await proxied.dynamic.resource(resources.configMaps, "default").get("passed-through");
    const otherMs = performance.now() - started;
    await Bun.sleep(1_000);
    release();
    const heldMs = await held;
    expect(otherMs).toBeLessThan(1_000);
    expect(heldMs).toBeGreaterThanOrEqual(1_000);
  });
});

const wires = { protobuf: "application/vnd.kubernetes.protobuf", json: "application/json" } as const;

/**
 * A client through the proxy asking for `wire` on built-in resources; `gzip`: accepting gzip,
 * as kube-loom's client did before it asked for bodies uncompressed (a client that accepts it
 * gets each event of a streaming list gzipped on its own).
 */
async function proxiedOver(wire: keyof typeof wires, gzip = false): Promise<KubeClient> {
  const config = loadClientConfig({ kubeconfig: controlPlane.writeKubeconfig({ server: proxy.url }) });
  const transport = await createFetch(config.tls);
  const acceptingGzip: Fetch = (url, init) => transport(url, { ...init, headers: { ...(init.headers as Record<string, string>), "Accept-Encoding": "gzip" } });
  return createKubeClient(config, { qps: 2000, burst: 2000, timeoutMs: 30_000, contentType: wires[wire], ...(gzip ? { fetch: acceptingGzip } : {}) });
}

let configMapCount = 0;
const createConfigMap = () =>
  direct.dynamic.resource(resources.configMaps, "default").create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `window-${configMapCount++}` } });

/** Reads `events` until it ends or fails, as `createConfigMap` keeps the watch busy; what it failed with, or "ended". */
async function watchOutcome(events: WatchStream<KubeObject>): Promise<{ error: unknown; seen: WatchEvent<KubeObject>[] }> {
  const seen: WatchEvent<KubeObject>[] = [];
  const busy = setInterval(() => void createConfigMap(), 200);
  try {
    for await (const event of events) seen.push(event);
    return { error: "ended", seen };
  } catch (error) {
    return { error, seen };
  } finally {
    clearInterval(busy);
  }
}

/** A watch from the list's version, or a streaming list. */
async function openWatch(client: KubeClient, signal: AbortSignal, streaming = false): Promise<WatchStream<KubeObject>> {
  const configMaps = client.dynamic.resource(resources.configMaps, "default");
  if (streaming) return configMaps.watch({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true }, signal);
  const { resourceVersion } = (await direct.dynamic.resource(resources.configMaps, "default").list()).metadata ?? {};
  return configMaps.watch({ resourceVersion }, signal);
}

/** Windows a test opened: closed after it whatever happened, so a failure does not spill into the next test. */
const opened: FaultWindow[] = [];
const openWindow = (options: FaultWindowOptions) => {
  const window = proxy.openFaultWindow(options);
  opened.push(window);
  return window;
};

describe("RequestFaultProxy fault windows", () => {
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((window) => window.close(true)));
  });

  test("a 500 reaches the client as the Status it carries; a 429 with Retry-After: 1 is waited out and sent again", async () => {
    const get = { method: "GET", path: /^\/api\/v1\/namespaces\/default\/configmaps\/passed-through/ };
    const failing = openWindow({ match: get, fault: { kind: "status", code: 500 }, pick: () => true });
    const err = await proxied.dynamic.resource(resources.configMaps, "default").get("passed-through").catch((e: unknown) => e);
    await failing.close();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(500);
    expect((err as ApiError).reason).toBe("InternalError");
    expect(failing.hits.get("request")).toBe(1);

    let first = true;
    const throttling = openWindow({ match: get, fault: { kind: "status", code: 429 }, pick: () => first && !(first = false) });
    const object = await proxied.dynamic.resource(resources.configMaps, "default").get("passed-through");
    await throttling.close();
    expect(object.metadata?.name).toBe("passed-through");
    // Answered although the first try was refused: the client waited and sent it again.
    expect(throttling.hits.get("request")).toBe(1);
  });

  test("a delayed request is answered after the delay, and closing the window at once sends it on at once", async () => {
    const get = { method: "GET", path: /^\/api\/v1\/namespaces\/default\/configmaps\/passed-through/ };
    const window = openWindow({ match: get, fault: { kind: "delay", delayMs: () => 60_000 }, pick: () => true });
    let answered = false;
    const late = proxied.dynamic.resource(resources.configMaps, "default").get("passed-through").then(() => (answered = true));
    await Bun.sleep(1_000);
    expect(answered).toBe(false);
    await window.close(true);
    await late;
    expect(window.hits.get("request")).toBe(1);
  });

  const watchFaults = {
    "garbage-watch": { does: "garbage between two events fails the watch with a DecodeError", failsAsExpected: (error: unknown) => error instanceof DecodeError },
    "cut-watch": { does: "a cut inside an event fails the watch with an expected error", failsAsExpected: isExpectedError },
  } as const;
  for (const wire of ["protobuf", "json"] as const) {
    for (const streaming of [false, true]) {
      for (const [kind, { does, failsAsExpected }] of Object.entries(watchFaults)) {
        test(`${wire} ${streaming ? "streaming list, gzipped event by event" : "watch"}: ${does}`, async () => {
          const client = await proxiedOver(wire, streaming);
          const stop = new AbortController();
          const events = await openWatch(client, stop.signal, streaming);
          const window = openWindow({ match: watchRequests, fault: { kind: kind as keyof typeof watchFaults }, pick: () => true });
          const { error } = await watchOutcome(events);
          await window.close();
          stop.abort();
          expect(failsAsExpected(error), String(error)).toBe(true);
          expect(window.hits.get(wire)).toBe(1);
        });
      }
    }
  }

  test("a stalled watch gets nothing while the window lasts, then everything held back", async () => {
    const stop = new AbortController();
    const events = await openWatch(await proxiedOver("protobuf"), stop.signal);
    const stall: RequestFault = { kind: "stall-watch" };
    const window = openWindow({ match: watchRequests, fault: stall, pick: () => true });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of events) if (event.type === "ADDED") seen.push((event.object as KubeObject).metadata?.name ?? "");
    })().catch(() => undefined);
    const created = [await createConfigMap(), await createConfigMap()].map((object) => object.metadata?.name ?? "");
    await Bun.sleep(1_000);
    expect(seen).toEqual([]);
    await window.close();
    while (seen.length < created.length) await Bun.sleep(50);
    stop.abort();
    await reading;
    expect(seen).toEqual(created);
    expect(window.hits.get("protobuf")).toBe(1);
  });
});
