import { describe, expect, test } from "bun:test";
import { TerminalError } from "../../pkg/controller/reconciler.ts";
import { createKubeClient } from "../../pkg/kube/client.ts";
import type { ApiResource } from "../../pkg/kube/discovery.ts";
import type { PartialObjectMetadata } from "../../pkg/kube/dynamic-client.ts";
import { KubeObjectApi } from "./object-api.ts";
import { RestMapper } from "./rest-mapper.ts";

interface Sent {
  method: string;
  path: string;
  contentType: string | undefined;
  body: unknown;
}

type Answer = { status: number; body?: unknown };

const resources: ApiResource[] = [
  { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, verbs: ["get", "list", "watch", "delete", "patch"] },
  { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true, verbs: ["get", "list", "watch", "delete", "patch"] },
];

/** An ObjectApi over a fake server that answers from `answers` in order (200 {} when they run out). */
async function setup(answers: Answer[], cached: Record<string, PartialObjectMetadata> = {}) {
  const sent: Sent[] = [];
  const client = await createKubeClient(
    { server: "https://api.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
    {
      qps: 0,
      burst: 0,
      timeoutMs: 1000,
      fetch: async (url, init) => {
        const headers = init.headers as Record<string, string>;
        sent.push({
          method: String(init.method),
          path: new URL(url).pathname,
          contentType: headers["Content-Type"],
          body: init.body ? JSON.parse(String(init.body)) : undefined,
        });
        const answer = answers.shift() ?? { status: 200, body: {} };
        return new Response(JSON.stringify(answer.body ?? { kind: "Status", code: answer.status }), { status: answer.status });
      },
    },
  );
  const mapper = new RestMapper();
  mapper.update({ resources, failed: new Map() });
  const api = new KubeObjectApi(client, mapper, (resource, key) => cached[`${resource.resource} ${key}`]);
  return { api, sent };
}

const widget = { apiVersion: "example.com/v1", kind: "Widget", namespace: "ns", name: "w", uid: "uid-w" };
const configMap = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "cm", uid: "uid-cm" };
const refA = { apiVersion: "v1", kind: "ConfigMap", name: "a", uid: "uid-a" };
const refB = { apiVersion: "v1", kind: "ConfigMap", name: "b", uid: "uid-b", blockOwnerDeletion: true };

describe("KubeObjectApi", () => {
  test("removes references with a strategic merge patch that needs no current state", async () => {
    const { api, sent } = await setup([]);
    await api.removeOwnerReferences(configMap, ["uid-a"]);
    expect(sent).toEqual([
      {
        method: "PATCH",
        path: "/api/v1/namespaces/ns/configmaps/cm",
        contentType: "application/strategic-merge-patch+json",
        body: { metadata: { uid: "uid-cm", ownerReferences: [{ $patch: "delete", uid: "uid-a" }] } },
      },
    ]);
  });

  test("custom resources refuse strategic merge: the whole list goes as a merge patch at the cached resourceVersion, from then on directly; unblocking writes blockOwnerDeletion false on every reference, as upstream's merge patch", async () => {
    const cached = { "widgets ns/w": { metadata: { name: "w", namespace: "ns", uid: "uid-w", resourceVersion: "7", ownerReferences: [refA, refB] } } };
    const { api, sent } = await setup([{ status: 415 }], cached);
    await api.removeOwnerReferences(widget, ["uid-a"]);
    await api.unblockOwnerReferences(widget, [refA, refB]);
    expect(sent.map((s) => s.contentType)).toEqual([
      "application/strategic-merge-patch+json",
      "application/merge-patch+json",
      "application/merge-patch+json",
    ]);
    expect(sent[1]?.body).toEqual({ metadata: { uid: "uid-w", resourceVersion: "7", ownerReferences: [refB] } });
    expect(sent[2]?.body).toEqual({ metadata: { uid: "uid-w", resourceVersion: "7", ownerReferences: [{ ...refA, blockOwnerDeletion: false }, { ...refB, blockOwnerDeletion: false }] } });
  });

  test("a dependent already gone is not an error", async () => {
    const { api } = await setup([{ status: 404 }]);
    await expect(api.removeOwnerReferences(configMap, ["uid-a"])).resolves.toBeUndefined();
  });

  test("any other error is passed on, for the dependent to be tried again", async () => {
    for (const status of [403, 409, 422]) {
      const { api } = await setup([{ status }]);
      await expect(api.removeOwnerReferences(configMap, ["uid-a"])).rejects.toMatchObject({ name: "ApiError", code: status });
    }
  });

  test("deletes with the UID and resourceVersion preconditions and the policy", async () => {
    const { api, sent } = await setup([]);
    await api.delete(configMap, "Foreground", "42");
    expect(sent[0]?.method).toBe("DELETE");
    expect(sent[0]?.body).toMatchObject({ propagationPolicy: "Foreground", preconditions: { uid: "uid-cm", resourceVersion: "42" } });
  });

  test("removes a finalizer at the current resourceVersion, reading again after a conflict", async () => {
    const current = (rv: string) => ({ status: 200, body: { metadata: { name: "cm", namespace: "ns", uid: "uid-cm", resourceVersion: rv, finalizers: ["x", "orphan"] } } });
    const { api, sent } = await setup([current("1"), { status: 409 }, current("2"), { status: 200 }]);
    await api.removeFinalizer(configMap, "orphan");
    expect(sent.map((s) => s.method)).toEqual(["GET", "PATCH", "GET", "PATCH"]);
    expect(sent[3]?.body).toEqual({ metadata: { uid: "uid-cm", resourceVersion: "2", finalizers: ["x"] } });
  });

  test("leaves a recreated object's finalizers alone", async () => {
    const { api, sent } = await setup([{ status: 200, body: { metadata: { name: "cm", namespace: "ns", uid: "other", finalizers: ["orphan"] } } }]);
    await api.removeFinalizer(configMap, "orphan");
    expect(sent.map((s) => s.method)).toEqual(["GET"]);
  });

  test("a namespaced object outside any namespace (guessed from a cluster-scoped dependent) cannot be asked for: a terminal error", async () => {
    const { api, sent } = await setup([]);
    await expect(api.get({ ...configMap, namespace: "" })).rejects.toBeInstanceOf(TerminalError);
    expect(sent).toEqual([]);
  });

  test("unblocking answers with the patched object", async () => {
    const patched = { metadata: { name: "cm", namespace: "ns", uid: "uid-cm", resourceVersion: "8", ownerReferences: [{ ...refB, blockOwnerDeletion: false }] } };
    const { api } = await setup([{ status: 200, body: patched }]);
    expect(await api.unblockOwnerReferences(configMap, [refB])).toEqual(patched);
  });

  test("reads the informer's copy only when it is the same object", async () => {
    const { api } = await setup([], { "configmaps ns/cm": { metadata: { name: "cm", namespace: "ns", uid: "old" } } });
    expect(api.cached(configMap)).toBeUndefined();
    expect(api.cached({ ...configMap, uid: "old" })?.metadata?.uid).toBe("old");
  });
});
