// The fault proxy itself, against a real API server: a cut answer leaves the write done and the
// client with an error; a hold delays only the matching connection's answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { RequestFaultProxy } from "./request-fault-proxy.ts";

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
