// The helpers controllers write with (finalizer, server-side apply, owner references) against a
// real kube-apiserver: what the API server stores, and how a stale cache is caught and recovered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { controller } from "../../pkg/builder/controller-builder.ts";
import { finalizer } from "../../pkg/controller/finalizer.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { setControllerReference } from "../../pkg/kube/controller-reference.ts";
import { isConflict, isNotFound } from "../../pkg/kube/errors.ts";
import { hasFinalizer } from "../../pkg/kube/finalizers.ts";
import { type ObjectOf, resources } from "../../pkg/kube/gvr.ts";
import { apply, applyStatus } from "../../pkg/kube/server-side-apply.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import { runControllerForTest, testControllerContext } from "../support/controller-context.ts";
import { ensureNamespace, fastClient, informerFactory } from "./informer-fixtures.ts";

type ConfigMap = ObjectOf<typeof resources.configMaps>;

const namespace = "helpers";
const ours = "helpers.kube-loom.io/cleanup";
let controlPlane: ControlPlane;
let client: KubeClient;

const configMaps = () => client.dynamic.resource<ConfigMap>(resources.configMaps, namespace);
const current = (name: string) =>
  configMaps()
    .get(name)
    .catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
  await ensureNamespace(client, namespace);
}, 300_000);

afterAll(async () => {
  await controlPlane?.stop();
});

describe("finalizer", () => {
  test("in a running controller: added first, apply sees it held, deletion runs cleanup, then the object goes", async () => {
    const applied: string[][] = [];
    let cleanups = 0;
    const descriptor = controller("finalizer-helper")
      .for(resources.configMaps, { scope: { namespace, labelSelector: "helpers=finalizer" } })
      .complete(({ client }) => async ({ object }) => {
        if (!object) return;
        return finalizer(client, resources.configMaps, ours, object, {
          apply: async (cm) => void applied.push(cm.metadata?.finalizers ?? []),
          cleanup: async () => void cleanups++,
        });
      });
    const stop = new AbortController();
    const events: EventRecorder = { eventf: () => undefined };
    const context = testControllerContext({ client, informers: informerFactory(client), events, descriptor });
    const { running } = await runControllerForTest(descriptor, context, stop.signal);
    try {
      await configMaps().create({ metadata: { name: "held", labels: { helpers: "finalizer" } } });
      await waitUntil(() => applied.length > 0, "apply to run");
      expect(applied[0]).toEqual([ours]);
      expect((await current("held"))?.metadata?.finalizers).toEqual([ours]);

      await configMaps().delete("held");
      await waitUntil(async () => (await current("held")) === undefined, "the object to be gone");
      // At least once: a reconcile queued meanwhile may still see the finalizer in the cache (the contract in finalizer.ts).
      expect(cleanups).toBeGreaterThanOrEqual(1);
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);

  test("a stale object (old resourceVersion) gets 409 Conflict when adding; the next reconcile, on a fresh one, adds it", async () => {
    const created = await configMaps().create({ metadata: { name: "stale-add" } });
    await configMaps().patch("stale-add", { metadata: { labels: { touched: "yes" } } }, "merge");
    const handlers = { apply: async () => undefined, cleanup: async () => undefined };

    const error = await finalizer(client, resources.configMaps, ours, created, handlers).catch((err: unknown) => err);
    expect(isConflict(error)).toBe(true);
    expect((await current("stale-add"))?.metadata?.finalizers).toBeUndefined();

    const fresh = (await current("stale-add")) as ConfigMap;
    await finalizer(client, resources.configMaps, ours, fresh, handlers);
    expect((await current("stale-add"))?.metadata?.finalizers).toEqual([ours]);
  });

  test("a stale deleting object: cleanup runs, removal gets 409 and keeps the finalizer; the next reconcile removes it", async () => {
    await configMaps().create({ metadata: { name: "stale-remove", finalizers: [ours, "someone.else/keep"] } });
    await configMaps().delete("stale-remove");
    const deleting = (await current("stale-remove")) as ConfigMap;
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    // Another controller lets go of its own finalizer meanwhile.
    await configMaps().patch("stale-remove", { metadata: { finalizers: [ours] } }, "merge");
    let cleanups = 0;
    const handlers = { apply: async () => undefined, cleanup: async () => void cleanups++ };

    const error = await finalizer(client, resources.configMaps, ours, deleting, handlers).catch((err: unknown) => err);
    expect(isConflict(error)).toBe(true);
    expect(cleanups).toBe(1);
    expect(hasFinalizer((await current("stale-remove")) as ConfigMap, ours)).toBe(true);

    await finalizer(client, resources.configMaps, ours, (await current("stale-remove")) as ConfigMap, handlers);
    expect(cleanups).toBe(2);
    expect(await current("stale-remove")).toBeUndefined();
  });

  test("removing from an object that is already gone is no error", async () => {
    await configMaps().create({ metadata: { name: "gone", finalizers: [ours] } });
    await configMaps().delete("gone");
    const deleting = (await current("gone")) as ConfigMap;
    await configMaps().patch("gone", { metadata: { finalizers: null } }, "merge");
    expect(await current("gone")).toBeUndefined();

    let cleanups = 0;
    await finalizer(client, resources.configMaps, ours, deleting, { apply: async () => undefined, cleanup: async () => void cleanups++ });
    expect(cleanups).toBe(1);
  });
});

describe("server-side apply", () => {
  test("creates, then updates, with the field manager recorded; another manager's conflicting apply needs force", async () => {
    const options = { fieldManager: "helpers-test", force: true };
    const created = await apply(client, resources.configMaps, { metadata: { name: "applied", namespace }, data: { color: "blue" } }, options);
    expect(created.data).toEqual({ color: "blue" });
    const updated = await apply(client, resources.configMaps, { metadata: { name: "applied", namespace }, data: { color: "green", size: "m" } }, options);
    expect(updated.data).toEqual({ color: "green", size: "m" });
    expect(updated.metadata?.managedFields).toContainEqual(expect.objectContaining({ manager: "helpers-test", operation: "Apply" }));

    const rival = { metadata: { name: "applied", namespace }, data: { color: "red" } };
    const error = await apply(client, resources.configMaps, rival, { fieldManager: "rival" }).catch((err: unknown) => err);
    expect(isConflict(error)).toBe(true);
    expect((await apply(client, resources.configMaps, rival, { fieldManager: "rival", force: true })).data).toEqual({ color: "red", size: "m" });
  });

  test("applyStatus writes through the status subresource, and apply leaves status alone", async () => {
    const deployments = { metadata: { name: "web", namespace } };
    const spec = {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } },
    };
    const options = { fieldManager: "helpers-test", force: true };
    await apply(client, resources.deployments, { ...deployments, spec, status: { observedGeneration: 7 } }, options);
    expect((await client.dynamic.resource<ObjectOf<typeof resources.deployments>>(resources.deployments, namespace).get("web")).status?.observedGeneration).toBeUndefined();

    const written = await applyStatus(client, resources.deployments, { ...deployments, status: { observedGeneration: 7 } }, options);
    expect(written.status?.observedGeneration).toBe(7);
    expect(written.metadata?.managedFields).toContainEqual(expect.objectContaining({ manager: "helpers-test", operation: "Apply", subresource: "status" }));
  });
});

describe("owner references", () => {
  test("a controller reference set by the helper is accepted by the API server and found by it", async () => {
    const owner = await configMaps().create({ metadata: { name: "owner" } });
    const owned = setControllerReference({ metadata: { name: "owned", namespace } }, owner, resources.configMaps);
    const stored = await apply(client, resources.configMaps, owned, { fieldManager: "helpers-test", force: true });
    expect(stored.metadata?.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true },
    ]);
  });
});
