import { describe, expect, test } from "bun:test";
import { createKubeClient, type KubeClient } from "../kube/client.ts";
import type { ClientConfig } from "../kube/client-config.ts";
import { isConflict } from "../kube/errors.ts";
import type { WireLease } from "../kube/lease-requests.ts";
import { type LeaderElectionRecord, KubeLeaseLock, leaseSpecFromRecord, recordFromLeaseSpec } from "./lease-lock.ts";
import { formatMicroTime, parseMicroTime } from "../kube/micro-time.ts";

const microTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const acquired = Date.parse("2026-11-21T23:40:01.123Z");
const record: LeaderElectionRecord = {
  holderIdentity: "host_1",
  leaseDurationSeconds: 15,
  acquireTime: acquired,
  renewTime: acquired + 2_000,
  leaseTransitions: 3,
};
const leasePath = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager";

/** An API server that keeps one Lease and checks resourceVersions on PUT, as the real one does. */
function leaseServer() {
  let stored: WireLease | undefined;
  let version = 0;
  const received: { method: string; path: string; body?: WireLease }[] = [];
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  const status = (code: number, reason: string) => json(code, { kind: "Status", apiVersion: "v1", status: "Failure", reason, code, message: reason });
  const store = (lease: WireLease) => {
    stored = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } };
    return json(200, stored);
  };
  const fetch = async (url: string, init: RequestInit) => {
    const method = init.method ?? "GET";
    const path = new URL(url).pathname;
    const body = init.body ? (JSON.parse(String(init.body)) as WireLease) : undefined;
    received.push({ method, path, ...(body ? { body } : {}) });
    if (method === "GET" && path === leasePath) return stored ? json(200, stored) : status(404, "NotFound");
    if (method === "POST" && path === leasePath.replace(/\/[^/]+$/, "") && body) return stored ? status(409, "AlreadyExists") : store(body);
    if (method === "PUT" && path === leasePath && body) {
      return body.metadata?.resourceVersion === stored?.metadata?.resourceVersion ? store(body) : status(409, "Conflict");
    }
    return status(405, "MethodNotAllowed");
  };
  const touch = () => stored && store(stored);
  return { fetch, received, touch };
}

const testConfig: ClientConfig = { server: "https://api.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" };

async function lockOn(server: ReturnType<typeof leaseServer>, limits = { qps: 0, burst: 0 }): Promise<{ lock: KubeLeaseLock; client: KubeClient }> {
  const client = await createKubeClient(testConfig, { ...limits, timeoutMs: 30_000, fetch: server.fetch });
  const lock = new KubeLeaseLock({ client, ...limits, namespace: "kube-system", name: "kube-controller-manager", identity: "host_1", renewDeadlineMs: 10_000 });
  return { lock, client };
}

describe("Lease record mapping", () => {
  test("writes MicroTime timestamps and reads them back", () => {
    const spec = leaseSpecFromRecord(record);
    expect(spec).toEqual({
      holderIdentity: "host_1",
      leaseDurationSeconds: 15,
      acquireTime: "2026-11-21T23:40:01.123000Z",
      renewTime: "2026-11-21T23:40:03.123000Z",
      leaseTransitions: 3,
    });
    expect(spec.renewTime).toMatch(microTime);
    expect(recordFromLeaseSpec(spec)).toEqual(record);
  });

  test("microseconds are dropped; missing fields read as empty", () => {
    expect(parseMicroTime("2026-11-21T23:40:01.123456Z")).toBe(acquired);
    expect(formatMicroTime(0)).toBe("1970-01-01T00:00:00.000000Z");
    expect(() => parseMicroTime("yesterday")).toThrow('invalid MicroTime "yesterday"');
    expect(recordFromLeaseSpec(undefined)).toEqual({ holderIdentity: "", leaseDurationSeconds: 0, acquireTime: 0, renewTime: 0, leaseTransitions: 0 });
  });
});

describe("KubeLeaseLock", () => {
  test("creates a valid coordination.k8s.io/v1 Lease, reads it, and updates it by PUT with its resourceVersion", async () => {
    const server = leaseServer();
    const { lock } = await lockOn(server);
    expect(lock.describe()).toBe("kube-system/kube-controller-manager");
    expect(await lock.get()).toBeNull();

    await lock.create(record);
    expect(server.received.at(-1)).toEqual({
      method: "POST",
      path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
      body: {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "kube-controller-manager", namespace: "kube-system" },
        spec: leaseSpecFromRecord(record),
      },
    });

    const observed = await lock.get();
    expect(observed?.record).toEqual(record);
    const renewed = { ...record, renewTime: record.renewTime + 2_000 };
    await lock.update(renewed);
    const put = server.received.at(-1);
    expect(put?.method).toBe("PUT");
    expect(put?.body).toMatchObject({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { resourceVersion: "1" } });
    expect((await lock.get())?.record).toEqual(renewed);
  });

  test("an update over a Lease someone else wrote meanwhile fails with a conflict", async () => {
    const server = leaseServer();
    const { lock } = await lockOn(server);
    await lock.create(record);
    server.touch();
    const error = await lock.update(record).catch((err: unknown) => err);
    expect(isConflict(error)).toBe(true);
  });

  test("an update before any read is refused", async () => {
    const { lock } = await lockOn(leaseServer());
    await expect(lock.update(record)).rejects.toThrow("lease kube-system/kube-controller-manager not initialized");
  });

  test("renewals have a rate limiter of their own: 150 requests queued on the main client do not delay them", async () => {
    const server = leaseServer();
    // --kube-api-qps/--kube-api-burst defaults: 150 requests wait about 6 s on the main limiter.
    const { lock, client } = await lockOn(server, { qps: 20, burst: 30 });
    let mainDone = 0;
    const stop = new AbortController();
    const queued = Array.from({ length: 150 }, () =>
      client.rest.request({ method: "GET", path: "/api", signal: stop.signal }).then(
        () => void mainDone++,
        () => undefined,
      ),
    );
    await lock.create(record);
    await lock.get();
    await lock.update({ ...record, renewTime: record.renewTime + 2_000 });
    // The renewal went through while most of the queue still waits behind the main limiter.
    expect(mainDone).toBeLessThan(100);
    expect(server.received.filter((r) => r.path === leasePath).at(-1)?.method).toBe("PUT");
    stop.abort();
    await Promise.all(queued);
  });
});
