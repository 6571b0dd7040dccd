import { afterEach, describe, expect, test } from "bun:test";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { eventually } from "../../test/support/eventually.ts";
import { obj } from "../../test/support/objects.ts";
import { DeletedFinalStateUnknown } from "../informer/deltas.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { resources } from "../kube/gvr.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { AddOptions, Priority } from "../workqueue/priority.ts";
import { Controller } from "./controller.ts";
import { enqueueMapped, type KeyQueue, ownKey } from "./handlers.ts";

class RecordingQueue implements KeyQueue {
  readonly added: { key: string; priority: Priority | undefined }[] = [];
  add(key: string, options?: AddOptions): void {
    this.added.push({ key, priority: options?.priority });
  }
  addAfter(): void {
    throw new Error("handlers do not delay");
  }
}

const at = (resourceVersion: string, key = "ns/a"): KubeObject => obj(key, { resourceVersion });

let stop = new AbortController();
afterEach(() => stop.abort());

describe("enqueueMapped priorities", () => {
  test("an add from the initial list is low; an object created since is normal", () => {
    const queue = new RecordingQueue();
    const handler = enqueueMapped(queue, ownKey);
    handler.onAdd?.(at("1", "ns/listed"), true);
    handler.onAdd?.(at("2", "ns/created"), false);
    expect(queue.added).toEqual([
      { key: "ns/listed", priority: "low" },
      { key: "ns/created", priority: "normal" },
    ]);
  });

  test("an update queues the keys of the old and the new state once each: low for a resync, normal for a real change", () => {
    const queue = new RecordingQueue();
    const handler = enqueueMapped(queue, (o: KubeObject) => [`owner-of/${o.metadata?.resourceVersion}`]);
    handler.onUpdate?.(at("5"), at("5"));
    handler.onUpdate?.(at("5"), at("6"));
    expect(queue.added).toEqual([
      { key: "owner-of/5", priority: "low" },
      { key: "owner-of/5", priority: "normal" },
      { key: "owner-of/6", priority: "normal" },
    ]);
  });

  test("a deletion, seen or inferred, is normal", () => {
    const queue = new RecordingQueue();
    const handler = enqueueMapped(queue, ownKey);
    handler.onDelete?.(at("7"));
    handler.onDelete?.(new DeletedFinalStateUnknown("ns/gone", at("3", "ns/gone")));
    expect(queue.added).toEqual([
      { key: "ns/a", priority: "normal" },
      { key: "ns/gone", priority: "normal" },
    ]);
  });
});

describe("a controller's reconciles", () => {
  test("one update of an object reconciles it once, though a worker is waiting when its key comes", async () => {
    stop = new AbortController();
    const pods = new FakeListerWatcher([obj("ns/a")]);
    const informers = new SharedInformerFactory({ listerWatcherFor: () => pods as unknown as ListerWatcher, defaultResyncMs: 0 });
    const controller = new Controller({ name: "t", informers, workers: 1 });
    controller.watch(resources.pods, enqueueMapped(controller.queue, ownKey));
    const reconciled: string[] = [];
    controller.reconcileWith({ reconcile: async (key) => void reconciled.push(key) });
    informers.start(stop.signal);
    const running = controller.run(stop.signal);
    await eventually(() => reconciled.length === 1 && controller.queue.len() === 0, "the listed object reconciled");

    pods.update(obj("ns/a", { labels: { changed: "yes" } }));
    await eventually(() => reconciled.length >= 2, "the update reconciled");
    await Bun.sleep(50);
    expect(reconciled).toEqual(["ns/a", "ns/a"]);
    stop.abort();
    await running;
  });
});

describe("a controller after a start with many objects", () => {
  test("live changes are reconciled before the 1,000 initial keys one worker is draining, and none of those is lost", async () => {
    stop = new AbortController();
    const initial = Array.from({ length: 1000 }, (_, i) => obj(`ns/initial-${i}`));
    const pods = new FakeListerWatcher(initial);
    const informers = new SharedInformerFactory({ listerWatcherFor: () => pods as unknown as ListerWatcher, defaultResyncMs: 0 });
    const controller = new Controller({ name: "t", informers, workers: 1 });
    controller.watch(resources.pods, enqueueMapped(controller.queue, ownKey));

    // The first reconcile holds the only worker until the live events are in the queue.
    const reconciled: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    controller.reconcileWith({
      reconcile: async (key) => {
        reconciled.push(key);
        if (reconciled.length === 1) await held;
      },
    });
    informers.start(stop.signal);
    const running = controller.run(stop.signal);
    await eventually(() => reconciled.length === 1 && controller.queue.len() === 999, "first initial key in the worker's hands");

    // A user changes an existing object (say, scales it), then creates one.
    pods.update(obj("ns/initial-700", { labels: { scaled: "yes" } }));
    pods.create(obj("ns/created"));
    await eventually(() => controller.queue.len() === 1000, "live events queued");
    release();

    await eventually(() => reconciled.length === 1001, "every key reconciled");
    expect(reconciled.slice(1, 3)).toEqual(["ns/initial-700", "ns/created"]);
    expect(new Set(reconciled).size).toBe(1001);
    stop.abort();
    await running;
  });
});
