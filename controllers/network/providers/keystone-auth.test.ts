// Keystone is not available here, so a fake Keystone and Neutron on loopback check exactly what
// goes over the wire: the token request, the X-Auth-Token header, the catalog lookup, renewal.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { FakeClock } from "../../../pkg/clock/fake-clock.ts";
import { KeystoneAuthenticator, KeystoneAuthError, keystoneV3URL, type KeystoneCredentials } from "./keystone-auth.ts";
import { NeutronClient } from "./neutron-client.ts";

interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
}

let server: Server<undefined>;
let seen: Seen[];
let tokens: number;
let acceptToken: (token: string | null) => boolean;
let base: string;
const signal = new AbortController().signal;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      seen.push({ method: request.method, path: url.pathname + url.search, headers: request.headers, body: text ? JSON.parse(text) : undefined });
      if (url.pathname === "/identity/v3/auth/tokens") {
        const body = JSON.parse(text) as { auth: { identity: { password?: { user: { password: string } }; application_credential?: { secret: string } } } };
        const secret = body.auth.identity.password?.user.password ?? body.auth.identity.application_credential?.secret;
        if (secret !== "s3cret") return Response.json({ error: { code: 401, message: "The request you have made requires authentication.", title: "Unauthorized" } }, { status: 401 });
        tokens++;
        return Response.json(
          {
            token: {
              expires_at: new Date(clock.now() + 3_600_000).toISOString(),
              catalog: [
                { type: "compute", endpoints: [{ interface: "public", region_id: "RegionOne", url: `${base}/compute` }] },
                {
                  type: "network",
                  endpoints: [
                    { interface: "internal", region_id: "RegionOne", url: `${base}/internal-network` },
                    { interface: "public", region_id: "RegionTwo", url: `${base}/network-two` },
                    { interface: "public", region_id: "RegionOne", url: `${base}/network/` },
                  ],
                },
              ],
            },
          },
          { status: 201, headers: { "X-Subject-Token": `token-${tokens}` } },
        );
      }
      if (!acceptToken(request.headers.get("X-Auth-Token"))) return Response.json({ error: { message: "bad token" } }, { status: 401 });
      return Response.json({ networks: [] });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

let clock: FakeClock;
beforeEach(() => {
  seen = [];
  tokens = 0;
  acceptToken = (token) => token !== null;
  clock = new FakeClock(Date.now());
});

function neutronVia(credentials: KeystoneCredentials, options: { region?: string; endpoint?: string } = {}) {
  const auth = new KeystoneAuthenticator({
    authURL: `${base}/identity`,
    credentials,
    endpointInterface: "public",
    timeoutMs: 5_000,
    clock,
    ...(options.region ? { region: options.region } : {}),
  });
  return new NeutronClient({ endpoint: options.endpoint ?? "", auth, timeoutMs: 5_000 });
}

const password: KeystoneCredentials = { type: "password", username: "kube-loom", userDomainName: "Default", password: "s3cret", projectName: "infra", projectDomainName: "Default" };

describe("Keystone v3 authentication", () => {
  test("password: a project-scoped token request, then X-Auth-Token on Neutron requests at the catalog's endpoint", async () => {
    await neutronVia(password, { region: "RegionOne" }).get("networks?tags=x", signal);
    expect(seen[0]).toMatchObject({ method: "POST", path: "/identity/v3/auth/tokens" });
    expect(seen[0]?.headers.get("Content-Type")).toBe("application/json");
    expect(seen[0]?.body).toEqual({
      auth: {
        identity: { methods: ["password"], password: { user: { name: "kube-loom", domain: { name: "Default" }, password: "s3cret" } } },
        scope: { project: { name: "infra", domain: { name: "Default" } } },
      },
    });
    expect(seen[1]).toMatchObject({ method: "GET", path: "/network/v2.0/networks?tags=x" });
    expect(seen[1]?.headers.get("X-Auth-Token")).toBe("token-1");
  });

  test("password scoped by project id", async () => {
    await neutronVia({ ...password, projectID: "p-123" }, { endpoint: `${base}/network` }).get("networks", signal);
    expect((seen[0]?.body as { auth: { scope: unknown } }).auth.scope).toEqual({ project: { id: "p-123" } });
  });

  test("application credential: id and secret, no scope", async () => {
    await neutronVia({ type: "v3applicationcredential", applicationCredentialID: "ac-1", applicationCredentialSecret: "s3cret" }).get("networks", signal);
    expect(seen[0]?.body).toEqual({ auth: { identity: { methods: ["application_credential"], application_credential: { id: "ac-1", secret: "s3cret" } } } });
  });

  test("the token is reused until shortly before it expires", async () => {
    const client = neutronVia(password, { endpoint: `${base}/network` });
    await client.get("networks", signal);
    await client.get("networks", signal);
    expect(tokens).toBe(1);
    await clock.advance(56 * 60_000);
    await client.get("networks", signal);
    expect(tokens).toBe(2);
    expect(seen.at(-1)?.headers.get("X-Auth-Token")).toBe("token-2");
  });

  test("a 401 from Neutron gets one retry with a fresh token", async () => {
    const client = neutronVia(password, { endpoint: `${base}/network` });
    await client.get("networks", signal);
    acceptToken = (token) => token === "token-2";
    await client.get("networks", signal);
    expect(tokens).toBe(2);
  });

  test("refused credentials: KeystoneAuthError naming the user, with Keystone's message", async () => {
    const client = neutronVia({ ...password, password: "wrong" });
    const error = await client.get("networks", signal).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KeystoneAuthError);
    expect((error as Error).message).toContain('the password of user "kube-loom": HTTP 401 The request you have made requires authentication.');
  });

  test("the v3 root is found with or without /v3", () => {
    expect(keystoneV3URL("https://keystone:5000")).toBe("https://keystone:5000/v3");
    expect(keystoneV3URL("https://keystone:5000/v3/")).toBe("https://keystone:5000/v3");
  });
});
