import { describe, expect, test } from "bun:test";
import { DiscoveryClient } from "./discovery.ts";
import { RestClient } from "./rest-client.ts";

/** An API server answering discovery from `documents` (path → body); other paths are 404, `failing` paths 503. */
function discoveryOf(documents: Record<string, unknown>, failing: string[] = []): { discovery: DiscoveryClient; requested: string[] } {
  const requested: string[] = [];
  const rest = new RestClient({
    config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
    fetch: async (url) => {
      const path = new URL(url).pathname;
      requested.push(path);
      if (failing.includes(path)) return new Response('{"kind":"Status","code":503,"reason":"ServiceUnavailable"}', { status: 503 });
      const body = documents[path];
      return body === undefined ? new Response("{}", { status: 404 }) : new Response(JSON.stringify(body));
    },
    throttle: { take: async () => undefined },
    userAgent: "kube-loom/test",
    timeoutMs: 1000,
  });
  return { discovery: new DiscoveryClient(rest), requested };
}

const verbs = ["create", "delete", "get", "list", "watch"];
const resource = (name: string, kind: string) => ({ name, kind, namespaced: true, verbs });

// A group as a CRD author builds one: kind Alpha in v1 and v1alpha1 (v1 preferred), kind Beta only in v1alpha1.
const documents = {
  "/api": { versions: ["v1"] },
  "/api/v1": { groupVersion: "v1", resources: [resource("configmaps", "ConfigMap"), resource("pods/status", "Pod")] },
  "/apis": {
    groups: [
      {
        name: "example.com",
        versions: [
          { groupVersion: "example.com/v1", version: "v1" },
          { groupVersion: "example.com/v1alpha1", version: "v1alpha1" },
        ],
        preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
      },
    ],
  },
  "/apis/example.com/v1": { groupVersion: "example.com/v1", resources: [resource("alphas", "Alpha")] },
  "/apis/example.com/v1alpha1": { groupVersion: "example.com/v1alpha1", resources: [resource("alphas", "Alpha"), resource("betas", "Beta")] },
};

const summary = (resources: { group: string; version: string; resource: string }[]) =>
  resources.map((r) => `${r.resource}.${r.version}.${r.group}`).sort();

describe("DiscoveryClient.serverPreferredResources", () => {
  test("every served version counts: a resource only in a non-preferred version is found there, others in the preferred version", async () => {
    const { discovery } = discoveryOf(documents);
    const { resources, failed } = await discovery.serverPreferredResources();
    expect(summary(resources)).toEqual(["alphas.v1.example.com", "betas.v1alpha1.example.com", "configmaps.v1."]);
    expect(resources.find((r) => r.resource === "betas")).toMatchObject({ kind: "Beta", namespaced: true, verbs });
    expect(failed.size).toBe(0);
  });

  test("a server without aggregated discovery is asked for /api and /apis once each", async () => {
    const { discovery, requested } = discoveryOf(documents);
    await discovery.serverPreferredResources();
    expect(requested.filter((path) => path === "/api" || path === "/apis").sort()).toEqual(["/api", "/apis"]);
  });

  test("the preferred version wins whichever order the versions are listed in", async () => {
    const group = documents["/apis"].groups[0];
    const reordered = { ...documents, "/apis": { groups: [{ ...group, versions: [...(group?.versions ?? [])].reverse() }] } };
    const { discovery } = discoveryOf(reordered);
    expect(summary((await discovery.serverPreferredResources()).resources)).toContain("alphas.v1.example.com");
  });

  test("a failing group version is reported and the rest still count", async () => {
    const { discovery } = discoveryOf(documents, ["/apis/example.com/v1alpha1"]);
    const { resources, failed } = await discovery.serverPreferredResources();
    expect(summary(resources)).toEqual(["alphas.v1.example.com", "configmaps.v1."]);
    expect([...failed.keys()]).toEqual(["example.com/v1alpha1"]);
    expect(failed.get("example.com/v1alpha1")?.message).toContain("503");
  });
});

/** The aggregated form of `documents` (discovery v2): one document for the core group, one for all others. */
const aggregatedContentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const discoveredResource = (name: string, group: string, version: string, kind: string) => ({
  resource: name,
  responseKind: { group, version, kind },
  scope: "Namespaced",
  verbs,
  // Subresources come apart from their resource in this form; they are never monitored.
  subresources: [{ subresource: "status", responseKind: { group, version, kind }, verbs: ["get"] }],
});
const aggregatedDocuments = {
  "/api": {
    kind: "APIGroupDiscoveryList",
    items: [{ metadata: { name: "" }, versions: [{ version: "v1", resources: [discoveredResource("configmaps", "", "v1", "ConfigMap")], freshness: "Current" }] }],
  },
  "/apis": {
    kind: "APIGroupDiscoveryList",
    items: [
      {
        metadata: { name: "example.com" },
        // Listed in order of preference: v1 first.
        versions: [
          { version: "v1", resources: [discoveredResource("alphas", "example.com", "v1", "Alpha")], freshness: "Current" },
          {
            version: "v1alpha1",
            resources: [discoveredResource("alphas", "example.com", "v1alpha1", "Alpha"), discoveredResource("betas", "example.com", "v1alpha1", "Beta")],
            freshness: "Current",
          },
        ],
      },
    ],
  },
};

/** A server that answers /api and /apis in the aggregated form when asked for it, and anything else as `discoveryOf`. */
function aggregatedDiscoveryOf(documents: Record<string, unknown>): { discovery: DiscoveryClient; requested: string[] } {
  const requested: string[] = [];
  const rest = new RestClient({
    config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
    fetch: async (url, init) => {
      const path = new URL(url).pathname;
      requested.push(path);
      const accept = (init.headers as Record<string, string>).Accept ?? "";
      if (accept.includes("as=APIGroupDiscoveryList") && documents[path] !== undefined) {
        return new Response(JSON.stringify(documents[path]), { headers: { "Content-Type": aggregatedContentType } });
      }
      return new Response("{}", { status: 404 });
    },
    throttle: { take: async () => undefined },
    userAgent: "kube-loom/test",
    timeoutMs: 1000,
  });
  return { discovery: new DiscoveryClient(rest), requested };
}

describe("DiscoveryClient.serverPreferredResources with aggregated discovery", () => {
  test("two requests, /api and /apis, give what one request per group version gives", async () => {
    const { discovery, requested } = aggregatedDiscoveryOf(aggregatedDocuments);
    const { resources, failed } = await discovery.serverPreferredResources();
    expect(summary(resources)).toEqual(["alphas.v1.example.com", "betas.v1alpha1.example.com", "configmaps.v1."]);
    expect(resources.find((r) => r.resource === "betas")).toMatchObject({ kind: "Beta", namespaced: true, verbs });
    expect(failed.size).toBe(0);
    expect(requested.sort()).toEqual(["/api", "/apis"]);
  });

  test("a stale group version (its aggregated API is down) is reported failed, and the group's other versions still count", async () => {
    const group = aggregatedDocuments["/apis"].items[0];
    const stale = { ...aggregatedDocuments, "/apis": { kind: "APIGroupDiscoveryList", items: [{ ...group, versions: [{ ...group?.versions[0], freshness: "Stale" }, group?.versions[1]] }] } };
    const { discovery } = aggregatedDiscoveryOf(stale);
    const { resources, failed } = await discovery.serverPreferredResources();
    expect(summary(resources)).toEqual(["alphas.v1alpha1.example.com", "betas.v1alpha1.example.com", "configmaps.v1."]);
    expect([...failed.keys()]).toEqual(["example.com/v1"]);
  });
});
