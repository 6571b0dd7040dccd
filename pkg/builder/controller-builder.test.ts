import { afterEach, describe, expect, test } from "bun:test";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { eventually } from "../../test/support/eventually.ts";
import { obj } from "../../test/support/objects.ts";
import { runControllerForTest, testControllerContext } from "../../test/support/controller-context.ts";
import type { EventRecorder } from "../events/recorder.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import type { KubeClient } from "../kube/client.ts";
import { type GroupVersionResource, resources } from "../kube/gvr.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ControllerDescriptor } from "../manager/controller-descriptor.ts";
import { intFlag } from "../options/flag-definition.ts";
import { UsageError } from "../options/usage-error.ts";
import { generationChanged } from "../controller/predicates.ts";
import type { ReconcileRequest } from "./build-controller.ts";
import { controller } from "./controller-builder.ts";

const noEvents: EventRecorder = { eventf: () => undefined };
const noClient = {} as KubeClient;
const widgets = { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true } as const;

let stop = new AbortController();
afterEach(() => stop.abort());

/** Runs `descriptor` over fake collections, one per resource name; returns what it reconciled. */
async function run(descriptor: ControllerDescriptor, collections: Record<string, FakeListerWatcher>) {
  stop = new AbortController();
  const requested: GroupVersionResource[] = [];
  const informers = new SharedInformerFactory({
    listerWatcherFor: (gvr) => {
      requested.push(gvr);
      const collection = collections[gvr.resource];
      if (!collection) throw new Error(`test has no collection for ${gvr.resource}`);
      return collection as unknown as ListerWatcher;
    },
    defaultResyncMs: 0,
  });
  const context = testControllerContext({ client: noClient, informers, events: noEvents, descriptor });
  await runControllerForTest(descriptor, context, stop.signal);
  return { requested };
}

function recording() {
  const seen: ReconcileRequest<KubeObject>[] = [];
  const keys = () => seen.map((request) => request.key);
  return { seen, keys, reconcile: async (request: ReconcileRequest<KubeObject>) => void seen.push(request) };
}

describe("controller builder", () => {
  test("for(): every object is reconciled with its cached state; a deleted one with none", async () => {
    const pods = new FakeListerWatcher([obj("ns/a"), obj("ns/b")]);
    const { seen, keys, reconcile } = recording();
    await run(controller("t").for(resources.pods).complete(() => reconcile), { pods });
    await eventually(() => keys().length === 2, "both pods reconciled");
    expect(keys().sort()).toEqual(["ns/a", "ns/b"]);
    expect(seen[0]?.object?.metadata?.name).toBe(seen[0]?.name ?? "");

    pods.delete("ns/a");
    await eventually(() => seen.some((request) => request.key === "ns/a" && request.object === undefined), "deletion reconciled");
  });

  test("owns(): an owned object's events reconcile its controller owner, only when the owner is of the primary kind", async () => {
    const owner = (kind: string, name: string) => ({ apiVersion: "example.com/v1", kind, name, uid: `uid-${name}`, controller: true });
    const parts = new FakeListerWatcher([
      obj("ns/part-1", { ownerReferences: [owner("Widget", "w1")] }),
      obj("ns/part-2", { ownerReferences: [owner("Gadget", "g1")] }),
      obj("ns/part-3", { ownerReferences: [{ ...owner("Widget", "w2"), controller: false }] }),
    ]);
    const { keys, reconcile } = recording();
    await run(controller("t").for(widgets).owns(resources.configMaps).complete(() => reconcile), {
      widgets: new FakeListerWatcher(),
      configmaps: parts,
    });
    await eventually(() => keys().includes("ns/w1"), "owner reconciled");
    expect(keys()).toEqual(["ns/w1"]);
  });

  test("watches(): the map function names the keys; predicates drop updates that do not matter", async () => {
    const configMaps = new FakeListerWatcher([obj("ns/settings", { generation: 1 })]);
    const { keys, reconcile } = recording();
    const descriptor = controller("t")
      .watches(resources.configMaps, (cm: KubeObject) => [`ns/for-${cm.metadata?.name}`], { predicates: [generationChanged] })
      .complete(() => reconcile);
    await run(descriptor, { configmaps: configMaps });
    await eventually(() => keys().length === 1, "add mapped");

    configMaps.update(obj("ns/settings", { generation: 1, labels: { touched: "yes" } }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(keys()).toHaveLength(1);
    configMaps.update(obj("ns/settings", { generation: 2 }));
    await eventually(() => keys().length >= 2, "spec change mapped");
    expect(new Set(keys())).toEqual(new Set(["ns/for-settings"]));
  });

  test("for() with indexers: a watches map function finds the primaries filed under a value, by an index name the types know", async () => {
    const usesAnnotation = "example.com/uses";
    const configMapOf = (widget: KubeObject) => {
      const used = widget.metadata?.annotations?.[usesAnnotation];
      return used ? [`${widget.metadata?.namespace}/${used}`] : [];
    };
    const widgetObjects = new FakeListerWatcher([
      obj("ns/w1", { annotations: { [usesAnnotation]: "shared" } }),
      obj("ns/w2", { annotations: { [usesAnnotation]: "other" } }),
      obj("other/w3", { annotations: { [usesAnnotation]: "shared" } }),
    ]);
    const configMaps = new FakeListerWatcher();
    const { keys, reconcile } = recording();
    const descriptor = controller("t")
      .for(widgets, { indexers: { configMap: configMapOf } })
      .watches(resources.configMaps, (cm, { primariesByIndex }) => {
        // @ts-expect-error: only the indexes for() declared can be looked up (never called: an unknown index throws)
        void (() => primariesByIndex("owner", "x"));
        return primariesByIndex("configMap", `${cm.metadata?.namespace}/${cm.metadata?.name}`).map((widget) => `${widget.metadata?.namespace}/${widget.metadata?.name}`);
      })
      .complete(() => reconcile);
    await run(descriptor, { widgets: widgetObjects, configmaps: configMaps });
    await eventually(() => keys().length === 3, "every widget reconciled once");

    configMaps.create(obj("ns/shared"));
    await eventually(() => keys().length === 4, "the ConfigMap mapped");
    expect(keys().slice(3)).toEqual(["ns/w1"]);
  });

  test.each(["resyncPeriodMs", "resyncPeriod"] as const)("for() with %p: cached objects are reconciled again that often", async (option) => {
    const { keys, reconcile } = recording();
    await run(controller("t").for(resources.pods, { [option]: 1000 }).complete(() => reconcile), { pods: new FakeListerWatcher([obj("ns/a")]) });
    await eventually(() => keys().length >= 2, "a resync", 3000);
    expect(new Set(keys())).toEqual(new Set(["ns/a"]));
  });

  test("the controller declares exactly the caches it reads, and starts no sooner than they sync", async () => {
    const pods = new FakeListerWatcher([obj("ns/a")]);
    pods.failNextList(new Error("pods is forbidden"));
    const descriptor = controller("t")
      .for(resources.pods)
      .complete((context) => {
        context.informer(resources.configMaps);
        return async () => undefined;
      });
    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr) => (gvr.resource === "pods" ? pods : new FakeListerWatcher()) as unknown as ListerWatcher,
      defaultResyncMs: 0,
    });
    const created = await descriptor.create(testControllerContext({ client: noClient, informers, events: noEvents, descriptor }));
    expect(created?.caches?.map((informer) => informer.name)).toEqual(["pods.v1", "configmaps.v1"]);
  });

  test("a workers flag joins the controller's flags; enqueueAtStart keys run without any object", async () => {
    const workersFlag = intFlag({ name: "concurrent-t-syncs", group: "t", default: 3, help: "Workers." });
    const { keys, reconcile } = recording();
    const descriptor = controller("t").aliases("t-controller").workers(workersFlag).enqueueAtStart("tick").complete(() => reconcile);
    expect(descriptor).toMatchObject({ name: "t", aliases: ["t-controller"], enabledByDefault: true, flags: [workersFlag] });
    await run(descriptor, {});
    await eventually(() => keys().includes("tick"), "start key reconciled");
  });

  test("a workers flag set out of range is a usage error naming the flag, when the controller is built", async () => {
    const workersFlag = intFlag({ name: "concurrent-t-syncs", group: "t", default: 0, help: "Workers." });
    const descriptor = controller("t").workers(workersFlag).complete(() => async () => undefined);
    const informers = new SharedInformerFactory({ listerWatcherFor: () => new FakeListerWatcher() as unknown as ListerWatcher, defaultResyncMs: 0 });
    const building = descriptor.create(testControllerContext({ client: noClient, informers, events: noEvents, descriptor }));
    await expect(building).rejects.toBeInstanceOf(UsageError);
    await expect(building).rejects.toThrow("invalid value 0 for --concurrent-t-syncs: expected a number of workers from 1 to 10000");
  });

  test("a builder never changes: each step returns a new one, so one start can be completed twice", () => {
    const extraFlag = intFlag({ name: "t-extra", group: "t", default: 1, help: "Extra." });
    const base = controller("t").for(widgets);
    const withFlag = base.flags(extraFlag).owns(resources.pods);
    const plain = base.complete(() => async () => undefined);
    expect(plain.flags).toEqual([]);
    expect(withFlag.complete(() => async () => undefined).flags).toEqual([extraFlag]);
    expect(() => base.for(widgets)).toThrow("for() given twice");
  });

  test("a number of workers that is not a whole number from 1 to 10000 is refused at once", () => {
    expect(controller("t").workers(10_000)).toBeDefined();
    for (const count of [0, -1, 2.5, Number.NaN, 100_000_000]) {
      expect(() => controller("t").workers(count)).toThrow(`controller t: invalid number of workers ${count}: expected a whole number from 1 to 10000`);
    }
  });

  test("waitForCrd: idle until the CustomResourceDefinition is established, then the primary is listed and reconciled", async () => {
    const crds = new FakeListerWatcher();
    const widgetObjects = new FakeListerWatcher([obj("ns/w1")]);
    const { keys, reconcile } = recording();
    const { requested } = await run(controller("t").for(widgets, { waitForCrd: true }).complete(() => reconcile), {
      customresourcedefinitions: crds,
      widgets: widgetObjects,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requested.map((gvr) => gvr.resource)).toEqual(["customresourcedefinitions"]);
    crds.create(
      obj("widgets.example.com", {}, {
        spec: { versions: [{ name: "v1", served: true }] },
        status: { conditions: [{ type: "Established", status: "True" }] },
      }),
    );
    await eventually(() => keys().includes("ns/w1"), "widget reconciled after the CRD appeared");
  });
});
