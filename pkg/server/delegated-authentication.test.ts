import { describe, expect, test } from "bun:test";
import { RestClient } from "../kube/rest-client.ts";
import type { Fetch } from "../kube/transport.ts";
import { DelegatedAuthenticator } from "./delegated-authentication.ts";

/** A client of a pretend API server; `answer` sees each request body. */
function restClient(answer: (body: unknown, signal: AbortSignal | null | undefined) => Promise<Response>): RestClient {
  const fetch: Fetch = (_url, init) => answer(JSON.parse(String(init.body)), init.signal);
  return new RestClient({
    config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
    fetch,
    throttle: { take: async () => undefined },
    userAgent: "kube-loom/test",
    timeoutMs: 30_000,
  });
}

const withToken = (token: string) => new Request("https://kube-loom:10257/metrics", { headers: { Authorization: `Bearer ${token}` } });

describe("DelegatedAuthenticator", () => {
  test("a TokenReview names the user; the answer is reused for the same token", async () => {
    const reviewed: unknown[] = [];
    const rest = restClient(async (body) => {
      reviewed.push(body);
      return Response.json({ status: { authenticated: true, user: { username: "system:serviceaccount:ns:sa", uid: "u1", groups: ["system:serviceaccounts"] } } });
    });
    const authenticator = new DelegatedAuthenticator(rest, 10_000);
    const expected = { user: { username: "system:serviceaccount:ns:sa", uid: "u1", groups: ["system:serviceaccounts", "system:authenticated"] } };
    expect(await authenticator.authenticate(withToken("t1"), undefined)).toEqual(expected);
    expect(await authenticator.authenticate(withToken("t1"), undefined)).toEqual(expected);
    expect(reviewed).toEqual([{ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "t1" } }]);
  });

  test("a verified client certificate needs no review; no credentials at all are refused without one", async () => {
    const authenticator = new DelegatedAuthenticator(restClient(() => Promise.reject(new Error("must not be called"))), 10_000);
    expect(await authenticator.authenticate(new Request("https://kube-loom/metrics"), { commonName: "alice", organizations: ["devs"] })).toEqual({
      user: { username: "alice", groups: ["devs", "system:authenticated"] },
    });
    expect(await authenticator.authenticate(new Request("https://kube-loom/metrics"), undefined)).toEqual({ rejected: "no client certificate and no bearer token" });
    expect(await authenticator.authenticate(new Request("https://kube-loom/metrics", { headers: { Authorization: "Basic abc" } }), undefined)).toHaveProperty("rejected");
  });

  test("an API server that never answers: refused after the review timeout, and the next request fails at once", async () => {
    let calls = 0;
    const hanging = restClient(
      (_body, signal) =>
        new Promise((_resolve, reject) => {
          calls++;
          signal?.addEventListener("abort", () => reject(signal.reason));
        }),
    );
    const authenticator = new DelegatedAuthenticator(hanging, 10_000);
    const result = await authenticator.authenticate(withToken("t"), undefined);
    expect(result).toHaveProperty("rejected");
    expect((result as { rejected: string }).rejected).toStartWith("the TokenReview failed");
    expect(await authenticator.authenticate(withToken("t"), undefined)).toHaveProperty("rejected");
    expect(calls).toBe(1);
  }, 15_000);
});
