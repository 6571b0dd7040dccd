import { describe, expect, test } from "bun:test";
import { type ObjectOf, resources, resourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import { echo, type RecordedRequest, recordingClient, statusReply } from "../../test/support/recording-client.ts";
import { finalizer, type FinalizerHandlers } from "./finalizer.ts";
import type { ReconcileResult } from "./reconciler.ts";

type ConfigMap = ObjectOf<typeof resources.configMaps>;

const ours = "example.com/cleanup";
const deletedAt = "2026-01-01T00:00:00Z";

function configMap(finalizers: string[] | undefined, deleting = false): ConfigMap {
  return {
    metadata: { name: "cm", namespace: "ns", resourceVersion: "41", ...(finalizers && { finalizers }), ...(deleting && { deletionTimestamp: deletedAt }) },
  };
}

/** Handlers that count their calls; `cleanupResult` is what cleanup resolves with. */
function counting(cleanupResult?: ReconcileResult): FinalizerHandlers<ConfigMap> & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    apply: async () => void calls.push("apply"),
    cleanup: async () => {
      calls.push("cleanup");
      return cleanupResult;
    },
  };
}

async function run(object: ConfigMap, handlers: FinalizerHandlers<ConfigMap>, answer: (request: RecordedRequest) => ReturnType<typeof echo> = echo) {
  const { client, sent } = await recordingClient(answer);
  const result = await finalizer(client, resources.configMaps, ours, object, handlers);
  return { result, sent };
}

const finalizerPatch = (finalizers: string[], fieldManager?: string) => ({
  method: "PATCH",
  path: `/api/v1/namespaces/ns/configmaps/cm${fieldManager ? `?fieldManager=${fieldManager}` : ""}`,
  contentType: "application/merge-patch+json",
  body: { metadata: { finalizers, resourceVersion: "41" } },
});

describe("finalizer", () => {
  test("absent and not deleting: adds it after the others, at the cached resourceVersion, and returns without applying", async () => {
    const handlers = counting();
    const { result, sent } = await run(configMap(["other/keep"]), handlers);
    expect(sent).toEqual([finalizerPatch(["other/keep", ours])]);
    expect(handlers.calls).toEqual([]);
    expect(result).toBeUndefined();
  });

  test("present and not deleting: apply, with its result passed through, and nothing written", async () => {
    const handlers = { ...counting(), apply: async () => ({ requeueAfterMs: 5_000 }) };
    const { result, sent } = await run(configMap([ours]), handlers);
    expect(result).toEqual({ requeueAfterMs: 5_000 });
    expect(sent).toEqual([]);
  });

  test("deleting and present: cleanup, then the finalizer removed and the others kept", async () => {
    const handlers = { ...counting(), fieldManager: "mirror" };
    const { sent } = await run(configMap(["other/keep", ours], true), handlers);
    expect(handlers.calls).toEqual(["cleanup"]);
    expect(sent).toEqual([finalizerPatch(["other/keep"], "mirror")]);
  });

  test("deleting and already released: nothing runs and nothing is written", async () => {
    const handlers = counting();
    const { sent } = await run(configMap(["other/keep"], true), handlers);
    expect(handlers.calls).toEqual([]);
    expect(sent).toEqual([]);
  });

  test("cleanup asking to look again later keeps the finalizer and passes the delay on", async () => {
    const handlers = counting({ requeueAfterMs: 30_000 });
    const { result, sent } = await run(configMap([ours], true), handlers);
    expect(result).toEqual({ requeueAfterMs: 30_000 });
    expect(sent).toEqual([]);
  });

  test("cleanup failing keeps the finalizer and the error goes to the queue", async () => {
    const handlers = { ...counting(), cleanup: async () => Promise.reject(new Error("provider down")) };
    const { client, sent } = await recordingClient();
    await expect(finalizer(client, resources.configMaps, ours, configMap([ours], true), handlers)).rejects.toThrow("provider down");
    expect(sent).toEqual([]);
  });

  test("409 Conflict (a stale cache) is thrown for the queue to retry; 404 on removal means already gone", async () => {
    const conflict = () => statusReply(409, "Conflict");
    const { client } = await recordingClient(conflict);
    await expect(finalizer(client, resources.configMaps, ours, configMap(undefined), counting())).rejects.toThrow("409 Conflict");
    const { sent } = await run(configMap([ours], true), counting(), () => statusReply(404, "NotFound"));
    expect(sent).toHaveLength(1);
  });

  test("a cluster-scoped resource is written without a namespace", async () => {
    const widgets = resourceType<KubeObject>({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: false });
    const { client, sent } = await recordingClient();
    await finalizer(client, widgets, ours, { metadata: { name: "w", resourceVersion: "7" } }, counting());
    expect(sent.map((request) => request.path)).toEqual(["/apis/example.com/v1/widgets/w"]);
  });

  test("an object without a resourceVersion is refused before any write", async () => {
    const { client, sent } = await recordingClient();
    await expect(finalizer(client, resources.configMaps, ours, { metadata: { name: "cm", namespace: "ns" } }, counting())).rejects.toThrow(
      'finalizer: ConfigMap "cm" has no metadata.resourceVersion; expected the object as read from the API server',
    );
    expect(sent).toEqual([]);
  });
});
