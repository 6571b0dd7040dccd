import { describe, expect, test } from "bun:test";
import { RestClient } from "../kube/rest-client.ts";
import { DelegatedAuthorizer } from "./delegated-authorization.ts";

function authorizer(answer: (body: unknown) => unknown, alwaysAllowPaths: string[] = ["/healthz", "debug/*"]) {
  const reviewed: unknown[] = [];
  const rest = new RestClient({
    config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
    fetch: async (_url, init) => {
      const body = JSON.parse(String(init.body));
      reviewed.push(body);
      return Response.json(answer(body));
    },
    throttle: { take: async () => undefined },
    userAgent: "kube-loom/test",
    timeoutMs: 30_000,
  });
  return { subject: new DelegatedAuthorizer(rest, { alwaysAllowPaths, authorizedTtlMs: 10_000, unauthorizedTtlMs: 10_000 }), reviewed };
}

const scraper = { username: "system:serviceaccount:monitoring:prometheus", uid: "u1", groups: ["system:serviceaccounts", "system:authenticated"] };

describe("DelegatedAuthorizer", () => {
  test("a SubjectAccessReview with the path and verb; the answer is reused", async () => {
    const { subject, reviewed } = authorizer(() => ({ status: { allowed: true } }));
    expect(await subject.authorize(scraper, "/metrics", "get")).toEqual({ allowed: true });
    expect(await subject.authorize(scraper, "/metrics", "get")).toEqual({ allowed: true });
    expect(reviewed).toEqual([
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { nonResourceAttributes: { path: "/metrics", verb: "get" }, user: scraper.username, groups: scraper.groups, uid: "u1" },
      },
    ]);
  });

  test("a refusal carries the API server's reason", async () => {
    const { subject } = authorizer(() => ({ status: { allowed: false, reason: "no RBAC policy matched" } }));
    expect(await subject.authorize(scraper, "/metrics", "get")).toEqual({ allowed: false, reason: "no RBAC policy matched" });
  });

  test("system:masters and always-allowed paths are decided without a review", async () => {
    const { subject, reviewed } = authorizer(() => ({ status: { allowed: false } }));
    expect(await subject.authorize({ username: "admin", groups: ["system:masters"] }, "/metrics", "get")).toEqual({ allowed: true });
    expect(await subject.authorize(scraper, "/healthz", "get")).toEqual({ allowed: true });
    expect(reviewed).toEqual([]);
  });

  test("always-allowed paths: exact, or by prefix with a trailing *, the leading / optional", () => {
    const { subject } = authorizer(() => ({}));
    expect(subject.isAlwaysAllowed("/healthz")).toBe(true);
    expect(subject.isAlwaysAllowed("/healthz/informer-sync")).toBe(false);
    expect(subject.isAlwaysAllowed("/debug/controllers/gc/graph")).toBe(true);
    expect(subject.isAlwaysAllowed("/metrics")).toBe(false);
  });
});
