import { afterEach, describe, expect, test } from "bun:test";
import pino from "pino";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { eventually } from "../../test/support/eventually.ts";
import { obj } from "../../test/support/objects.ts";
import { testControllerContext } from "../../test/support/controller-context.ts";
import type { EventRecorder } from "../events/recorder.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { waitForNamedCacheSync } from "../informer/wait-for-cache-sync.ts";
import type { KubeClient } from "../kube/client.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import { controller } from "./controller-builder.ts";

const widgets = { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true } as const;
const establishedCrd = obj("widgets.example.com", {}, {
  spec: { versions: [{ name: "v1", served: true }] },
  status: { conditions: [{ type: "Established", status: "True" }] },
});

const pinoInfo = 30;
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

  test("a controller waiting for its CRD says so at info: installing the controller first is a normal order", async () => {
    stop = new AbortController();
    const logs = await startGatedController(new FakeListerWatcher());
    await eventually(() => logs.length > 0, "the wait logged");
    expect(logs).toEqual([{ level: pinoInfo, msg: expect.stringContaining("CustomResourceDefinition is not installed") }]);
  });
});

/** Starts a controller of widgets behind a CRD gate as the manager would (once the CRD informer synced); resolves with its log lines. */
async function startGatedController(crds: FakeListerWatcher): Promise<{ level: number; msg: string }[]> {
  const collections: Record<string, FakeListerWatcher> = { customresourcedefinitions: crds, widgets: new FakeListerWatcher() };
  const informers = new SharedInformerFactory({
    listerWatcherFor: (gvr) => collections[gvr.resource] as unknown as ListerWatcher,
    defaultResyncMs: 0,
  });
  const logs: { level: number; msg: string }[] = [];
  const logger = pino({ level: "debug", base: undefined, timestamp: false }, {
    write: (line: string) => void logs.push(pickLevelAndMessage(JSON.parse(line))),
  });
  const descriptor = controller("t").for(widgets, { waitForCrd: true }).complete(() => async () => undefined);
  const events: EventRecorder = { eventf: () => undefined };
  const runnable = await descriptor.create({ ...testControllerContext({ client: {} as KubeClient, informers, events, descriptor }), logger });
  if (!runnable) throw new Error("the controller declined to start");
  informers.start(stop.signal);
  await waitForNamedCacheSync("t", runnable.caches ?? [], stop.signal);
  void runnable.start(stop.signal, stop.signal);
  return logs;
}

function pickLevelAndMessage({ level, msg }: { level: number; msg: string }): { level: number; msg: string } {
  return { level, msg };
}
