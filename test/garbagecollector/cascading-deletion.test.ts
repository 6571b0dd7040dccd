// The garbage collector against a real API server, driven with kubectl as users drive it:
// background, foreground and orphan cascades, recreated owners, several owners, invalid
// cross-namespace references (handled as kube-controller-manager v1.37 handles them, checked
// against it), and custom resources defined after start-up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { ensureNamespace, fastClient, inParallel } from "../integration/informer-fixtures.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { buildKubeLoom, type KubeLoomProcess } from "../support/kube-loom-binary.ts";
import {
  configMapNames,
  createConfigMap,
  getConfigMap,
  kubectl,
  referenceTo,
  startGarbageCollector,
  waitUntil,
} from "./gc-fixtures.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  let binary: string;
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
  client = await fastClient(controlPlane.kubeconfigPath);
  kubeLoom = await startGarbageCollector(controlPlane, binary);
}, 300_000);

afterAll(async () => {
  if (kubeLoom) await kubeLoom.stopCleanly();
  await controlPlane?.stop();
}, 120_000);

async function namespace(name: string): Promise<string> {
  await ensureNamespace(client, name);
  return name;
}

describe("garbage collector on a real API server", () => {
  test("background: deleting an owner deletes its 1,000 dependents", async () => {
    const ns = await namespace("background");
    const owner = await createConfigMap(client, ns, "owner");
    const names = Array.from({ length: 1000 }, (_, i) => `dependent-${i}`);
    await inParallel(names, 32, (name) => createConfigMap(client, ns, name, { ownerReferences: [referenceTo(owner)] }));
    expect(await configMapNames(client, ns)).toHaveLength(1001);

    const started = performance.now();
    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns]);
    await waitUntil(async () => (await configMapNames(client, ns)).length === 0, "the 1,000 dependents to be deleted", 240_000);
    const seconds = (performance.now() - started) / 1000;
    console.log(`background cascade of 1,000 dependents: ${seconds.toFixed(1)} s`);
  }, 300_000);

  test("foreground: the owner stays, with its finalizer, until every blocking dependent is gone", async () => {
    const ns = await namespace("foreground");
    const owner = await createConfigMap(client, ns, "owner");
    await createConfigMap(client, ns, "quick", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });
    // A finalizer nobody removes yet keeps this dependent (and so the owner) around.
    await createConfigMap(client, ns, "held", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })], finalizers: ["example.com/hold"] });

    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => (await configMapNames(client, ns)).join() === "held,owner", "the unblocked dependent to go first");
    const waiting = await getConfigMap(client, ns, "owner");
    expect(waiting?.metadata?.deletionTimestamp).toBeDefined();
    expect(waiting?.metadata?.finalizers).toContain("foregroundDeletion");
    expect((await getConfigMap(client, ns, "held"))?.metadata?.deletionTimestamp).toBeDefined();

    await kubectl(controlPlane, ["patch", "configmap", "held", "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    await waitUntil(async () => (await configMapNames(client, ns)).length === 0, "the owner to go once nothing blocks it");
  }, 120_000);

  test("foreground: a chain A ← B ← C collapses from the bottom up", async () => {
    const ns = await namespace("chain");
    const a = await createConfigMap(client, ns, "a");
    const b = await createConfigMap(client, ns, "b", { ownerReferences: [referenceTo(a, { blockOwnerDeletion: true })] });
    await createConfigMap(client, ns, "c", { ownerReferences: [referenceTo(b, { blockOwnerDeletion: true })] });
    const configMaps = client.dynamic.resource(resources.configMaps, ns);
    const { metadata } = await configMaps.list({});
    const stopWatching = new AbortController();
    const events = await configMaps.watch({ resourceVersion: metadata?.resourceVersion }, stopWatching.signal);
    const deletedInOrder: string[] = [];
    const watching = (async () => {
      for await (const event of events) {
        if (event.type === "DELETED") deletedInOrder.push(event.object.metadata?.name ?? "");
        if (deletedInOrder.length === 3) break;
      }
    })();

    await kubectl(controlPlane, ["delete", "configmap", "a", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => deletedInOrder.length === 3, "the whole chain to be deleted");
    stopWatching.abort();
    await watching;
    expect(deletedInOrder).toEqual(["c", "b", "a"]);
  }, 120_000);

  test("orphan: dependents survive without the owner's reference, other references kept", async () => {
    const ns = await namespace("orphan");
    const owner = await createConfigMap(client, ns, "owner");
    const keeper = await createConfigMap(client, ns, "keeper");
    await createConfigMap(client, ns, "only-owner", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });
    await createConfigMap(client, ns, "two-owners", { ownerReferences: [referenceTo(owner), referenceTo(keeper)] });

    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns, "--cascade=orphan"]);
    await waitUntil(async () => (await getConfigMap(client, ns, "owner")) === undefined, "the owner to go");
    expect((await getConfigMap(client, ns, "only-owner"))?.metadata?.ownerReferences ?? []).toEqual([]);
    expect((await getConfigMap(client, ns, "two-owners"))?.metadata?.ownerReferences).toEqual([referenceTo(keeper)]);
  }, 120_000);

  test("an owner recreated under the same name (new UID) does not adopt the old dependents: they are collected", async () => {
    const ns = await namespace("recreated");
    const original = await createConfigMap(client, ns, "owner");
    // Dependents naming the owner's earlier incarnation, as if it had been deleted and recreated while they were written.
    const earlierIncarnation = { ...referenceTo(original), uid: "00000000-0000-0000-0000-000000000001" };
    await createConfigMap(client, ns, "stale-a", { ownerReferences: [earlierIncarnation] });
    await createConfigMap(client, ns, "current", { ownerReferences: [referenceTo(original)] });
    await waitUntil(async () => (await getConfigMap(client, ns, "stale-a")) === undefined, "the stale dependent to be collected");
    expect(await configMapNames(client, ns)).toEqual(["current", "owner"]);

    // And the real thing: delete and recreate the owner at once.
    await client.dynamic.resource(resources.configMaps, ns).delete("owner");
    const recreated = await createConfigMap(client, ns, "owner");
    await waitUntil(async () => (await getConfigMap(client, ns, "current")) === undefined, "the old incarnation's dependent to be collected");
    expect((await getConfigMap(client, ns, "owner"))?.metadata?.uid).toBe(recreated.metadata?.uid);
  }, 120_000);

  test("a dependent with two owners survives while one remains", async () => {
    const ns = await namespace("two-owners");
    const first = await createConfigMap(client, ns, "first");
    const second = await createConfigMap(client, ns, "second");
    await createConfigMap(client, ns, "shared", { ownerReferences: [referenceTo(first), referenceTo(second)] });

    await kubectl(controlPlane, ["delete", "configmap", "first", "-n", ns]);
    await waitUntil(
      async () => (await getConfigMap(client, ns, "shared"))?.metadata?.ownerReferences?.length === 1,
      "the deleted owner's reference to be removed",
    );
    expect((await getConfigMap(client, ns, "shared"))?.metadata?.ownerReferences).toEqual([referenceTo(second)]);

    await kubectl(controlPlane, ["delete", "configmap", "second", "-n", ns]);
    await waitUntil(async () => (await getConfigMap(client, ns, "shared")) === undefined, "the dependent to go with its last owner");
  }, 120_000);

  test("a reference to an owner in another namespace is dangling: the dependent is collected and reported once with a Warning Event", async () => {
    const owners = await namespace("cross-owner");
    const dependents = await namespace("cross-dependent");
    const owner = await createConfigMap(client, owners, "owner");
    const sibling = await createConfigMap(client, owners, "sibling", { ownerReferences: [referenceTo(owner)] });
    await createConfigMap(client, dependents, "dependent", { ownerReferences: [referenceTo(owner)] });

    await waitUntil(async () => (await getConfigMap(client, dependents, "dependent")) === undefined, "the dependent in the other namespace to be collected");
    const events = await invalidNamespaceEvents(dependents);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "Warning", regarding: { kind: "ConfigMap", name: "dependent" } });
    expect(events[0]?.series).toBeUndefined();
    expect(events[0]?.note).toStartWith(`ownerRef [v1/ConfigMap, namespace: ${dependents}, name: owner, uid: ${owner.metadata?.uid}] does not exist in namespace "${dependents}"`);
    // The owner, and what it owns in its own namespace, are untouched.
    expect(await getConfigMap(client, owners, "owner")).toBeDefined();
    expect((await getConfigMap(client, owners, "sibling"))?.metadata?.uid).toBe(sibling.metadata?.uid);
  }, 120_000);

  test("a cluster-scoped object with a namespaced owner is never collected, and is reported", async () => {
    const ns = await namespace("cluster-scoped");
    const owner = await createConfigMap(client, ns, "owner");
    const roles = client.dynamic.resource({ group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles" });
    await roles.create({ metadata: { name: "owned-by-a-configmap", ownerReferences: [referenceTo(owner)] }, rules: [] } as KubeObject);
    // Events about cluster-scoped objects go to the default namespace.
    await waitUntil(async () => {
      const events = await kubectl(controlPlane, ["get", "events", "-n", "default", "--field-selector=reason=OwnerRefInvalidNamespace", "-o", "name"]);
      return events.trim() !== "";
    }, "the OwnerRefInvalidNamespace event");
    // With the owner gone, the collector looks at the dependent again (refusing it for good), and still keeps it.
    const attempts = async () => (await metric("garbagecollector_attempts_total", 'queue="attempt_to_delete",outcome="error"')) ?? 0;
    await waitUntil(async () => (await attempts()) > 0, "the dependent to be refused a first time");
    const attemptsBefore = await attempts();
    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns]);
    await waitUntil(async () => (await attempts()) > attemptsBefore, "the dependent to be looked at again");
    expect((await roles.get("owned-by-a-configmap")).metadata?.name).toBe("owned-by-a-configmap");
  }, 120_000);

  test("a CRD created after start-up is monitored within one discovery period (30 s, and 10 s to start its informer); a deleted one is dropped", async () => {
    const ns = await namespace("crd");
    const monitored = async () => (await metric("garbagecollector_monitored_resources")) ?? 0;
    const before = await monitored();
    await kubectl(controlPlane, ["apply", "-f", "-"], widgetCrd);
    await kubectl(controlPlane, ["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=60s"]);
    const crdEstablished = performance.now();
    const owner = await createConfigMap(client, ns, "owner");
    const widgets = client.dynamic.resource({ group: "example.com", version: "v1", resource: "widgets" }, ns);
    await widgets.create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "dependent-widget", ownerReferences: [referenceTo(owner)] } });
    const widgetOwner = await widgets.create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "owner-widget" } });
    await createConfigMap(client, ns, "widget-dependent", { ownerReferences: [referenceTo({ ...widgetOwner, apiVersion: "example.com/v1", kind: "Widget" })] });

    // Counted from when the CRD was established: the objects below are created meanwhile.
    await waitUntil(async () => (await monitored()) === before + 1, "a monitor for widgets", crdEstablished + 40_000 - performance.now());

    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns]);
    await widgets.delete("owner-widget");
    await waitUntil(async () => (await widgets.list({})).items.length === 0, "the widget owned by a ConfigMap to be collected", 90_000);
    await waitUntil(async () => (await getConfigMap(client, ns, "widget-dependent")) === undefined, "the ConfigMap owned by a widget to be collected", 90_000);

    await kubectl(controlPlane, ["delete", "crd", "widgets.example.com"]);
    await waitUntil(async () => (await monitored()) === before, "the widgets monitor to be dropped", 90_000);
  }, 300_000);

  test("the graph debug page and the metrics show the collector at work", async () => {
    const ns = await namespace("debug");
    const owner = await createConfigMap(client, ns, "owner");
    const dependent = await createConfigMap(client, ns, "dependent", { ownerReferences: [referenceTo(owner)] });
    const uid = dependent.metadata?.uid ?? "";
    await waitUntil(async () => (await graph(uid)).includes(`uid=${owner.metadata?.uid}`), "the edge in the graph page");
    const dot = await graph(uid);
    expect(dot.startsWith("strict digraph full {")).toBe(true);
    expect(dot).toContain("ConfigMap.v1/dependent");
    expect(await metric("garbagecollector_deletions_total", 'propagation_policy="Background"')).toBeGreaterThan(0);
    expect(await metric("garbagecollector_graph_nodes", 'state="observed"')).toBeGreaterThan(0);
    expect(await metric("workqueue_adds_total", 'name="garbage_collector_attempt_to_delete"')).toBeGreaterThan(0);
  }, 60_000);

  test("--enable-garbage-collector=false leaves the controller out, as kube-controller-manager does", async () => {
    const disabled = await startGarbageCollector(controlPlane, await buildKubeLoom(), "gc-disabled", ["--enable-garbage-collector=false"]);
    try {
      await waitUntil(async () => disabled.logs().includes("garbage collector disabled by --enable-garbage-collector=false"), "the log line");
      expect((await fetch(`${disabled.url}/debug/controllers/garbagecollector/graph`)).status).toBe(404);
    } finally {
      await disabled.stopCleanly();
    }
  }, 120_000);
});

interface EventSummary {
  type?: string;
  note?: string;
  series?: unknown;
  regarding?: { kind?: string; name?: string };
}

async function invalidNamespaceEvents(ns: string): Promise<EventSummary[]> {
  const list = await client.dynamic.resource(resources.events, ns).list({ fieldSelector: "reason=OwnerRefInvalidNamespace" });
  return list.items as EventSummary[];
}

async function graph(uid: string): Promise<string> {
  return (await fetch(`${kubeLoom.url}/debug/controllers/garbagecollector/graph?uid=${uid}`)).text();
}

/** The value of one series at /metrics, selected by its labels (as written in the exposition). */
async function metric(name: string, labels = ""): Promise<number | undefined> {
  const text = await (await fetch(`${kubeLoom.url}/metrics`)).text();
  const prefix = labels ? `${name}{${labels}` : name;
  const line = text.split("\n").find((l) => l.startsWith(prefix) && (labels || l.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

const widgetCrd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
  - name: v1
    served: true
    storage: true
    schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;
