import { afterEach, describe, expect, test } from "bun:test";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { eventually } from "../../test/support/eventually.ts";
import { obj } from "../../test/support/objects.ts";
import { testControllerContext } from "../../test/support/controller-context.ts";
import type { EventRecorder } from "../events/recorder.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import type { KubeClient } from "../kube/client.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import { controller } from "./controller-builder.ts";

const widgets = { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true } as const;
const establishedCrd = obj("widgets.example.com", {}, {
  spec: { versions: [{ name: "v1", served: true }] },
  status: { conditions: [{ type: "Established", status: "True" }] },
});

let stop = new AbortController();
afterEach(() => stop.abort());

describe("primary resource behind a CRD gate", () => {
  test("a controller that has not started (a standby) still follows its primary once the CRD is established", async () => {
    stop = new AbortController();
    const collections: Record<string, FakeListerWatcher> = {
      customresourcedefinitions: new FakeListerWatcher(),
      widgets: new FakeListerWatcher([obj("ns/w1")]),
    };
    const requested: string[] = [];
    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr) => {
        requested.push(gvr.resource);
        return collections[gvr.resource] as unknown as ListerWatcher;
      },
      defaultResyncMs: 0,
    });
    const descriptor = controller("t").for(widgets, { waitForCrd: true }).complete(() => async () => undefined);
    const events: EventRecorder = { eventf: () => undefined };
    const runnable = await descriptor.create(testControllerContext({ client: {} as KubeClient, informers, events, descriptor }));
    informers.start(stop.signal);
    await eventually(() => informers.list().every((informer) => informer.hasSynced()), "the CRD informer synced");
    expect(requested).toEqual(["customresourcedefinitions"]);

    collections.customresourcedefinitions?.create(establishedCrd);
    await eventually(() => requested.includes("widgets"), "the primary informer requested");
    const caches = runnable?.caches ?? [];
    expect(caches).toHaveLength(2);
    await eventually(() => caches.every((cache) => cache.hasSynced()), "the primary's cache synced without start");
  });
});
