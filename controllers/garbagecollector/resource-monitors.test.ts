import { describe, expect, test } from "bun:test";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { ApiResource } from "../../pkg/kube/discovery.ts";
import { gvrString } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { eventually, settle } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { deletableResources, ResourceMonitors } from "./resource-monitors.ts";

const verbs = ["get", "list", "watch", "delete"];
const configMaps: ApiResource = { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, verbs };
const widgets: ApiResource = { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true, verbs };
const metricsResource: ApiResource = { group: "metrics.k8s.io", version: "v1beta1", resource: "pods", kind: "PodMetrics", namespaced: true, verbs };
const coreEvents: ApiResource = { group: "", version: "v1", resource: "events", kind: "Event", namespaced: true, verbs };
const newEvents: ApiResource = { group: "events.k8s.io", version: "v1", resource: "events", kind: "Event", namespaced: true, verbs };
const readOnly: ApiResource = { group: "", version: "v1", resource: "componentstatuses", kind: "ComponentStatus", namespaced: false, verbs: ["get", "list"] };

function setup() {
  const listerWatchers = new Map<string, FakeListerWatcher>();
  const requests: string[] = [];
  const informers = new SharedInformerFactory({
    listerWatcherFor: (gvr, request) => {
      requests.push(`${gvrString(gvr)}${request.metadataOnly ? " metadata" : ""}`);
      const lw = new FakeListerWatcher([{ metadata: { namespace: "ns", name: "x", uid: `uid-${gvr.resource}` }, spec: { size: 3 } } as KubeObject]);
      listerWatchers.set(gvrString(gvr), lw);
      return lw;
    },
    defaultResyncMs: 0,
  });
  const seen: string[] = [];
  const monitors = new ResourceMonitors(informers, (resource) => ({ onAdd: (obj) => void seen.push(`${resource.kind} ${obj.metadata?.name}`) }));
  const stop = new AbortController();
  return { informers, monitors, seen, listerWatchers, requests, stop };
}

describe("deletableResources", () => {
  test("keeps resources with list, watch and delete, without Events", () => {
    const { monitors } = setup();
    const discovered = { resources: [configMaps, coreEvents, newEvents, readOnly, widgets], failed: new Map() };
    expect(deletableResources(discovered, monitors)).toEqual([configMaps, widgets]);
  });

  test("a group whose discovery failed keeps its synced monitors", async () => {
    const { informers, monitors, stop } = setup();
    monitors.sync([configMaps, metricsResource]);
    informers.start(stop.signal);
    await eventually(() => monitors.isSynced(), "monitors synced");
    const discovered = { resources: [configMaps], failed: new Map([["metrics.k8s.io/v1beta1", new Error("503")]]) };
    expect(deletableResources(discovered, monitors)).toEqual([configMaps, metricsResource]);
    expect(deletableResources({ resources: [configMaps], failed: new Map() }, monitors)).toEqual([configMaps]);
    stop.abort();
  });
});

describe("ResourceMonitors", () => {
  test("monitors through the shared metadata informers and syncs once every handler has the initial list", async () => {
    const { informers, monitors, seen, stop } = setup();
    expect(monitors.isSynced()).toBe(false);
    monitors.sync([configMaps, widgets]);
    expect(monitors.monitorsExactly([widgets, configMaps])).toBe(true);
    informers.start(stop.signal);
    await eventually(() => monitors.isSynced(), "monitors synced");
    expect(seen.sort()).toEqual(["ConfigMap x", "Widget x"]);
    expect(monitors.lookup(widgets, "ns/x")?.metadata?.uid).toBe("uid-widgets");
    expect(informers.forMetadataReader(widgets, { namespace: "" }).informer.handlerCount).toBe(1);
    stop.abort();
  });

  test("a resource whose objects another controller reads shares that informer, whichever asked first; the others list metadata only", async () => {
    const { informers, monitors, requests, stop } = setup();
    informers.forResource(configMaps, { namespace: "" });
    monitors.sync([configMaps, widgets, metricsResource]);
    // Declared after the monitor, still before the start.
    const widgetObjects = informers.forResource(widgets, { namespace: "" }, { fields: ["spec.size"] });
    informers.start(stop.signal);
    await eventually(() => monitors.isSynced(), "monitors synced");
    expect(requests.sort()).toEqual(["configmaps.v1", "pods.v1beta1.metrics.k8s.io metadata", "widgets.v1.example.com"]);
    expect(informers.list()).toHaveLength(3);
    expect(monitors.lookup(widgets, "ns/x")).toBe(widgetObjects.lister.namespace("ns").get("x"));
    expect(monitors.lookup(widgets, "ns/x")?.metadata?.uid).toBe("uid-widgets");
    stop.abort();
  });

  test("a resource gone from discovery stops its informer and leaves the factory", async () => {
    const { informers, monitors, listerWatchers, stop } = setup();
    monitors.sync([configMaps, widgets]);
    informers.start(stop.signal);
    await eventually(() => monitors.isSynced(), "monitors synced");
    const { informer: oldInformer } = informers.forMetadataReader(widgets, { namespace: "" });
    expect(monitors.sync([configMaps])).toEqual({ added: [], removed: ["widgets.v1.example.com"] });
    await eventually(() => listerWatchers.get("widgets.v1.example.com")?.openWatches === 0, "the widgets watch to close");
    expect(monitors.lookup(widgets, "ns/x")).toBeUndefined();
    expect(informers.forMetadataReader(widgets, { namespace: "" }).informer).not.toBe(oldInformer);
    stop.abort();
  });

  test("an informer another controller still handles keeps running", async () => {
    const { informers, monitors, listerWatchers, stop } = setup();
    monitors.sync([widgets]);
    informers.forMetadataReader(widgets, { namespace: "" }).informer.addEventHandler({});
    informers.start(stop.signal);
    await eventually(() => monitors.isSynced(), "monitors synced");
    monitors.sync([]);
    await settle(20);
    expect(listerWatchers.get("widgets.v1.example.com")?.openWatches).toBe(1);
    stop.abort();
  });
});
