import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { createKubeClient } from "./client.ts";
import type { ClientConfig } from "./client-config.ts";
import { serviceAccountConfig, ServiceAccountTokenSource } from "./service-account-token.ts";

const config: ClientConfig = {
  server: "https://api.test",
  tls: { ca: "CA", cert: "CERT", key: "KEY" },
  authenticate: async () => ({}),
  namespace: "default",
  source: "test",
};

/** An API server with one namespace whose ServiceAccounts get numbered tokens valid for an hour. */
function tokenServer(clock: FakeClock, accounts: Set<string>) {
  const calls: string[] = [];
  let issued = 0;
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
  const fetch = async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    calls.push(`${init.method} ${path}`);
    const token = path.match(/^\/api\/v1\/namespaces\/kube-system\/serviceaccounts\/([^/]+)\/token$/);
    if (init.method === "POST" && token?.[1]) {
      if (!accounts.has(token[1])) return json(404, { kind: "Status", reason: "NotFound", code: 404, message: "not found" });
      const expirationTimestamp = new Date(clock.now() + 3_600_000).toISOString();
      return json(201, { kind: "TokenRequest", status: { token: `token-${++issued}`, expirationTimestamp } });
    }
    if (init.method === "POST" && path === "/api/v1/namespaces/kube-system/serviceaccounts") {
      accounts.add((JSON.parse(String(init.body)) as { metadata: { name: string } }).metadata.name);
      return json(201, {});
    }
    return json(405, { kind: "Status", code: 405, message: "unexpected" });
  };
  return { fetch, calls };
}

describe("ServiceAccountTokenSource", () => {
  test("creates a missing account, shares one request between callers, and renews at 80 % of the lifetime", async () => {
    const clock = new FakeClock();
    const server = tokenServer(clock, new Set());
    const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch: server.fetch });
    const source = new ServiceAccountTokenSource(client, { namespace: "kube-system", name: "replicaset-controller" }, clock);

    expect(await Promise.all([source.current(), source.current()])).toEqual(["token-1", "token-1"]);
    expect(server.calls).toEqual([
      "POST /api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller/token",
      "POST /api/v1/namespaces/kube-system/serviceaccounts",
      "POST /api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller/token",
    ]);
    await clock.advance(47 * 60_000);
    expect(await source.current()).toBe("token-1");
    await clock.advance(2 * 60_000);
    expect(await source.current()).toBe("token-2");
  });

  test("the account's client config sends its token and no client certificate", async () => {
    const clock = new FakeClock();
    const server = tokenServer(clock, new Set(["generic-garbage-collector"]));
    const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch: server.fetch });
    const source = new ServiceAccountTokenSource(client, { namespace: "kube-system", name: "generic-garbage-collector" }, clock);
    const asAccount = serviceAccountConfig(config, source);
    expect(asAccount.tls).toEqual({ ca: "CA" });
    expect(await asAccount.authenticate()).toEqual({ Authorization: "Bearer token-1" });
    expect(asAccount.source).toBe("test, as ServiceAccount kube-system/generic-garbage-collector");
  });
});
