import { describe, expect, test } from "bun:test";
import { SharedInformerFactory } from "../informer/factory.ts";
import { resources } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import { eventually } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { obj } from "../../test/support/objects.ts";
import { Controller } from "./controller.ts";

const pod = () => obj("ns/a", {}, { spec: { nodeName: "n1", containers: [{ name: "c" }] }, status: { phase: "Running", podIP: "10.0.0.1" } });

function setup() {
  const informers = new SharedInformerFactory({ listerWatcherFor: () => new FakeListerWatcher([pod()]), defaultResyncMs: 0 });
  const core = (name: string) => new Controller({ name, informers }).reconcileWith({ reconcile: async () => undefined });
  return { informers, core };
}

describe("Controller workers", () => {
  test("a number that is not a whole number from 1 to 10000 is refused when the controller is made", () => {
    const { informers } = setup();
    expect(new Controller({ name: "w", informers, workers: 10_000 }).name).toBe("w");
    for (const workers of [0, 1.5, 100_000_000]) {
      expect(() => new Controller({ name: "w", informers, workers })).toThrow(`controller w: invalid number of workers ${workers}: expected a whole number from 1 to 10000`);
    }
  });
});

describe("Controller caches", () => {
  test("the fields declared through informer and watch are what the shared cache keeps, across controllers", async () => {
    const { informers, core } = setup();
    const seen: KubeObject[] = [];
    const pods = core("first").informer(resources.pods, { fields: ["spec.nodeName"] });
    core("second").watch(resources.pods, { onAdd: (o) => void seen.push(o) }, { fields: ["status.phase"] });
    const stop = new AbortController();
    informers.start(stop.signal);
    await eventually(() => seen.length === 1, "the Pod handled");
    const cached = pods.lister.namespace("ns").get("a");
    expect(seen[0]).toBe(cached as KubeObject);
    expect(JSON.parse(JSON.stringify(cached))).toMatchObject({ spec: { nodeName: "n1" }, status: { phase: "Running" } });
    expect(Object.keys(cached?.spec ?? {})).toEqual(["nodeName"]);
    expect(Object.keys(cached?.status ?? {})).toEqual(["phase"]);
    stop.abort();
  });

  test("a controller that declares no fields reads whole objects", async () => {
    const { informers, core } = setup();
    core("first").informer(resources.pods, { fields: ["spec.nodeName"] });
    const pods = core("second").informer(resources.pods);
    const stop = new AbortController();
    informers.start(stop.signal);
    await eventually(() => pods.informer.hasSynced(), "synced");
    expect(pods.lister.namespace("ns").get("a")?.status).toEqual({ phase: "Running", podIP: "10.0.0.1" });
    stop.abort();
  });
});
