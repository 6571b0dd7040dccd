import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import type { ClientConfig } from "../kube/client-config.ts";
import { createKubeClient, withWriteGuard } from "../kube/client.ts";
import { silentLogger } from "../log/logger.ts";
import { Leadership } from "./leadership.ts";

function json(code: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status: code, headers: { "Content-Type": "application/json" } });
}

test("a write still on its way when leadership is lost is abandoned then, not left to land after the next leader took over", async () => {
  // The Lease's side of an API server; every other write is held, as by a proxy, until its sender gives up.
  let lease: Record<string, unknown> | undefined;
  let version = 0;
  let renewalsFail = false;
  let heldWriteAbandoned = false;
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const method = init.method ?? "GET";
    if (new URL(url).pathname.includes("/leases")) {
      if (method === "GET") return lease ? json(200, lease) : json(404, { kind: "Status", code: 404, reason: "NotFound" });
      if (renewalsFail) throw new TypeError("The socket connection was closed unexpectedly");
      const sent = JSON.parse(String(init.body)) as { metadata: object };
      lease = { ...sent, metadata: { ...sent.metadata, resourceVersion: String(++version) } };
      return json(method === "POST" ? 201 : 200, lease);
    }
    return new Promise<Response>((_resolve, reject) =>
      init.signal?.addEventListener("abort", () => {
        heldWriteAbandoned = true;
        reject(init.signal?.reason);
      }),
    );
  };
  const config: ClientConfig = { server: "https://fake.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "fake" };
  const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 30_000, fetch });
  const leadership = new Leadership({
    options: {
      leaderElection: { enabled: true, leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200, resourceLock: "leases", resourceName: "kube-loom", resourceNamespace: "kube-system" },
      connection: { kubeconfig: undefined, master: undefined, context: undefined, qps: 0, burst: 0, requestTimeoutMs: 30_000, contentType: "application/json" },
      controllerShutdownTimeoutMs: undefined,
    },
    client,
    identity: "this-process",
    events: { eventf: () => undefined },
    metrics: new Registry(),
    logger: silentLogger,
  });
  const guarded = withWriteGuard(client, leadership.writeGuard);
  let write: Promise<unknown> | undefined;
  const outcome = leadership.run(async (_stop, abort) => {
    write = guarded.rest.request({ method: "POST", path: "/api/v1/namespaces/web/pods", body: {} }).catch((err: unknown) => err);
    renewalsFail = true;
    await new Promise((resolve) => abort.addEventListener("abort", resolve, { once: true }));
  }, new AbortController().signal);
  expect(await outcome).toBe("leadership-lost");
  expect(await write).toBeInstanceOf(Error);
  expect(heldWriteAbandoned).toBe(true);
});
