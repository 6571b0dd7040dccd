import { describe, expect, spyOn, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { KubeObject } from "../kube/objects.ts";
import { eventually, settle } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { obj } from "../../test/support/objects.ts";
import { DeletedFinalStateUnknown, finalStateOf } from "./deltas.ts";
import { type ResourceEventHandler, isResync } from "./event-handler.ts";
import { Indexer } from "./indexer.ts";
import { SharedIndexInformer, type SharedIndexInformerOptions } from "./shared-informer.ts";

/** A handler that records what it is told as short strings. */
function recorder(log: string[] = []) {
  const handler: ResourceEventHandler<KubeObject> = {
    onAdd: (o, initial) => void log.push(`add ${o.metadata?.name}${initial ? " (initial)" : ""}`),
    onUpdate: (old, cur) => void log.push(`${isResync(old, cur) ? "resync" : "update"} ${cur.metadata?.name}`),
    onDelete: (o) => void log.push(`delete ${o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : o.metadata?.name}`),
  };
  return { log, handler };
}

function setup(objects: KubeObject[] = [obj("ns/a"), obj("ns/b")], options: SharedIndexInformerOptions<KubeObject> = {}) {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher(objects);
  const informer = new SharedIndexInformer(lw, { clock, random: () => 0, name: "pods.v1", ...options });
  const controller = new AbortController();
  let running: Promise<void> | undefined;
  return {
    clock,
    lw,
    informer,
    run: () => {
      running = informer.run(controller.signal);
    },
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}

describe("SharedIndexInformer", () => {
  test("every handler gets adds, updates and deletes in order", async () => {
    const { lw, informer, run, stop } = setup();
    const first = recorder();
    const second = recorder();
    informer.addEventHandler(first.handler);
    informer.addEventHandler(second.handler);
    run();
    await eventually(() => informer.hasSynced(), "synced");
    lw.create(obj("ns/c"));
    lw.update(obj("ns/a", { labels: { x: "1" } }));
    lw.delete("ns/b");
    const expected = ["add a (initial)", "add b (initial)", "add c", "update a", "delete b"];
    await eventually(() => first.log.length === 5 && second.log.length === 5, "events");
    expect(first.log).toEqual(expected);
    expect(second.log).toEqual(expected);
    expect(informer.getStore().listKeys().sort()).toEqual(["ns/a", "ns/c"]);
    expect(informer.lastSyncResourceVersion).toBe(lw.currentResourceVersion);
    await stop();
  });

  test("readers get the cache without its writes: the informer alone changes it", () => {
    const { informer } = setup();
    const cache = informer.getIndexer();
    // @ts-expect-error: the reader's view has no replace (nor add, update, delete, putByKey).
    const write: unknown = cache.replace;
    // The split is in the types alone: underneath it is the informer's own cache.
    expect(typeof write).toBe("function");
  });

  test("the indexer tells the resourceVersion of the last change it applied", async () => {
    const { lw, informer, run, stop } = setup();
    expect(informer.getIndexer().lastStoreSyncResourceVersion()).toBe("");
    run();
    await eventually(() => informer.hasSynced(), "synced");
    expect(informer.getIndexer().lastStoreSyncResourceVersion()).toBe(lw.currentResourceVersion);
    const created = lw.create(obj("ns/c"));
    await eventually(() => informer.getIndexer().getByKey("ns/c") !== undefined, "c cached");
    expect(informer.getIndexer().lastStoreSyncResourceVersion()).toBe(created.metadata?.resourceVersion ?? "?");
    lw.delete("ns/a");
    await eventually(() => informer.getIndexer().getByKey("ns/a") === undefined, "a gone");
    expect(informer.getIndexer().lastStoreSyncResourceVersion()).toBe(lw.currentResourceVersion);
    await stop();
  });

  test("each handler resyncs on its own period, seeing identical objects", async () => {
    const { clock, informer, run, stop } = setup([obj("ns/a")], { defaultResyncMs: 3000 });
    const fast = recorder();
    const slow = recorder();
    const never = recorder();
    informer.addEventHandler(fast.handler, { resyncPeriodMs: 1000 });
    informer.addEventHandler(slow.handler);
    informer.addEventHandler(never.handler, { resyncPeriodMs: 0 });
    run();
    await eventually(() => informer.hasSynced(), "synced");
    await clock.advance(1000);
    await eventually(() => fast.log.length === 2, "first resync");
    await clock.advance(1000);
    await eventually(() => fast.log.length === 3, "second resync");
    expect(slow.log).toEqual(["add a (initial)"]);
    await clock.advance(1000);
    await eventually(() => slow.log.length === 2, "slow resync");
    expect(fast.log).toEqual(["add a (initial)", "resync a", "resync a", "resync a"]);
    expect(slow.log).toEqual(["add a (initial)", "resync a"]);
    expect(never.log).toEqual(["add a (initial)"]);
    await stop();
  });

  test("resync periods below 1 s are raised to 1 s", async () => {
    const { clock, informer, run, stop } = setup([obj("ns/a")]);
    const eager = recorder();
    informer.addEventHandler(eager.handler, { resyncPeriodMs: 10 });
    run();
    await eventually(() => informer.hasSynced(), "synced");
    await clock.advance(999);
    await settle();
    expect(eager.log).toEqual(["add a (initial)"]);
    await clock.advance(1);
    await eventually(() => eager.log.length === 2, "resync");
    await stop();
  });

  test("isResync tells resyncs from real updates", () => {
    expect(isResync(obj("a", { resourceVersion: "5" }), obj("a", { resourceVersion: "5" }))).toBe(true);
    expect(isResync(obj("a", { resourceVersion: "5" }), obj("a", { resourceVersion: "6" }))).toBe(false);
  });

  test("a throwing or rejecting handler is logged and counted, and the others go on", async () => {
    const failures: { key: string; event: string }[] = [];
    const { lw, informer, run, stop } = setup([obj("ns/a")], { onHandlerError: (_err, { key, event }) => failures.push({ key, event }) });
    const healthy = recorder();
    informer.addEventHandler({
      onAdd: () => {
        throw new Error("sync boom");
      },
      onUpdate: async () => {
        throw new Error("async boom");
      },
    });
    informer.addEventHandler(healthy.handler);
    run();
    await eventually(() => informer.hasSynced(), "synced");
    lw.update(obj("ns/a", { labels: { x: "1" } }));
    lw.create(obj("ns/b"));
    await eventually(() => healthy.log.length === 3, "healthy handler got everything");
    await eventually(() => informer.counters.handlerErrors === 3, "errors counted");
    expect(failures).toEqual([
      { key: "ns/a", event: "add" },
      { key: "ns/a", event: "update" },
      { key: "ns/b", event: "add" },
    ]);
    await stop();
  });

  test("a slow async handler does not hold up the others", async () => {
    const { lw, informer, run, stop } = setup([]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowSeen: string[] = [];
    informer.addEventHandler({
      onAdd: async (o) => {
        slowSeen.push(o.metadata?.name ?? "");
        await gate;
      },
    });
    const fast = recorder();
    informer.addEventHandler(fast.handler);
    run();
    await eventually(() => informer.getStore().list().length === 0 && lw.openWatches === 1, "watching");
    lw.create(obj("ns/x"));
    lw.create(obj("ns/y"));
    await eventually(() => fast.log.length === 2, "fast handler done");
    expect(slowSeen).toEqual(["x"]);
    release();
    await eventually(() => slowSeen.length === 2, "slow handler caught up");
    expect(slowSeen).toEqual(["x", "y"]);
    await stop();
  });

  test("hasSynced waits until handlers have handled the initial list", async () => {
    const { informer, run, stop } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const registration = informer.addEventHandler({ onAdd: () => gate });
    run();
    await eventually(() => informer.getStore().list().length === 2, "cached");
    await settle();
    expect(informer.hasSynced()).toBe(false);
    expect(registration.hasSynced()).toBe(false);
    release();
    await eventually(() => informer.hasSynced(), "synced");
    expect(registration.hasSynced()).toBe(true);
    await stop();
  });

  test("a handler added after start first gets adds for everything cached", async () => {
    const { lw, informer, run, stop } = setup();
    run();
    await eventually(() => informer.hasSynced(), "synced");
    const late = recorder();
    const registration = informer.addEventHandler(late.handler);
    expect(registration.hasSynced()).toBe(false);
    await eventually(() => registration.hasSynced(), "late handler synced");
    expect(late.log.sort()).toEqual(["add a (initial)", "add b (initial)"]);
    lw.create(obj("ns/c"));
    await eventually(() => late.log.length === 3, "live event");
    expect(late.log[2]).toBe("add c");
    await stop();
  });

  test("a removed handler hears nothing more", async () => {
    const { lw, informer, run, stop } = setup();
    const kept = recorder();
    const removed = recorder();
    informer.addEventHandler(kept.handler);
    const registration = informer.addEventHandler(removed.handler);
    run();
    await eventually(() => informer.hasSynced(), "synced");
    await registration.remove();
    lw.create(obj("ns/c"));
    await eventually(() => kept.log.length === 3, "kept handler");
    expect(removed.log).toHaveLength(2);
    await stop();
  });

  test("a relist that misses an object delivers a tombstone to onDelete", async () => {
    const { clock, lw, informer, run, stop } = setup();
    const seen = recorder();
    informer.addEventHandler(seen.handler);
    const deletedNames: (string | undefined)[] = [];
    informer.addEventHandler({ onDelete: (o) => void deletedNames.push(finalStateOf(o).metadata?.name) });
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    await clock.advance(5_000);
    lw.endStreams();
    lw.deleteSilently("ns/b");
    lw.compact();
    await eventually(() => seen.log.includes("delete tombstone ns/b"), "tombstone");
    // The relisted, unchanged "a" is a resync-like update: no handler is due for one, so none hears it.
    expect(seen.log).toEqual(["add a (initial)", "add b (initial)", "delete tombstone ns/b"]);
    expect(informer.getStore().listKeys()).toEqual(["ns/a"]);
    await eventually(() => deletedNames.length === 1, "unwrapped tombstone");
    expect(deletedNames).toEqual(["b"]);
    await stop();
  });

  test("a relist as long as the cache, one object new in place of one gone, still tombstones the gone one", async () => {
    const { clock, lw, informer, run, stop } = setup();
    const seen = recorder();
    informer.addEventHandler(seen.handler);
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    await clock.advance(5_000);
    lw.endStreams();
    lw.deleteSilently("ns/b");
    lw.create(obj("ns/c"));
    lw.compact();
    await eventually(() => seen.log.length === 4, "the relist handled");
    expect(seen.log).toEqual(["add a (initial)", "add b (initial)", "delete tombstone ns/b", "add c"]);
    expect(informer.getStore().listKeys().sort()).toEqual(["ns/a", "ns/c"]);
    await stop();
  });

  test("a relist reaches the cache in one step, before any handler hears of it, and the cache is then as of the list's resourceVersion", async () => {
    const names = Array.from({ length: 2000 }, (_, i) => `ns/cm-${String(i).padStart(4, "0")}`);
    const [first, gone, last] = [names[0], names[1000], names[1999]] as [string, string, string];
    // An index function slow enough that applying the list takes several time slices.
    const spin = () => {
      const until = performance.now() + 0.02;
      while (performance.now() < until);
    };
    const { clock, lw, informer, run, stop } = setup(
      names.map((key) => obj(key)),
      { indexers: { byName: (o) => (spin(), [o.metadata?.name ?? ""]) } },
    );
    const cache = informer.getIndexer();
    const seen: string[] = [];
    const look = (event: string) =>
      void seen.push(`${event}: last@${cache.getByKey(last)?.metadata?.resourceVersion} gone=${cache.getByKey(gone) === undefined} cache@${cache.lastStoreSyncResourceVersion()}`);
    informer.addEventHandler({
      onUpdate: (_old, cur) => look(`update ${cur.metadata?.name}`),
      onDelete: (o) => look(`delete ${finalStateOf(o).metadata?.name}`),
    });
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "synced and watching", 30_000);
    await clock.advance(5_000);
    // Changes the watch never reports: only the relist after the 410 finds them.
    lw.endStreams();
    lw.update(obj(first, { labels: { v: "2" } }));
    const lastUpdated = lw.update(obj(last, { labels: { v: "2" } }));
    lw.deleteSilently(gone);
    lw.compact();
    await eventually(() => seen.length === 3, "the relist's three changes handled", 30_000);
    const after = `last@${lastUpdated.metadata?.resourceVersion} gone=true cache@${lw.currentResourceVersion}`;
    expect(seen).toEqual([`delete cm-1000: ${after}`, `update cm-0000: ${after}`, `update cm-1999: ${after}`]);
    await stop();
  }, 30_000);

  test("a relist keeps the cached copy of each object it lists unchanged, and transforms only the changed ones: no second copy of the cache", async () => {
    let transformed = 0;
    const { clock, lw, informer, run, stop } = setup([obj("ns/a"), obj("ns/b"), obj("ns/c")], {
      transform: (o) => (transformed++, { ...o, kind: "Slim" }),
    });
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "synced and watching");
    const cache = informer.getIndexer();
    const [a, b] = [cache.getByKey("ns/a"), cache.getByKey("ns/b")];
    expect(transformed).toBe(3);
    await clock.advance(5_000);
    lw.endStreams();
    const changed = lw.update(obj("ns/b", { labels: { v: "2" } }));
    lw.compact();
    await eventually(() => cache.getByKey("ns/b")?.metadata?.resourceVersion === changed.metadata?.resourceVersion, "the relist applied", 30_000);
    expect(cache.getByKey("ns/a")).toBe(a as KubeObject);
    expect(cache.getByKey("ns/b")).not.toBe(b as KubeObject);
    expect(cache.getByKey("ns/b")?.kind).toBe("Slim");
    expect(transformed).toBe(4);
    await stop();
  });

  test("a relist that changes a few objects changes just those in the cache, with no second cache built beside it; one an index function throws for is left out", async () => {
    const { clock, lw, informer, run, stop } = setup([obj("ns/a"), obj("ns/b"), obj("ns/c"), obj("ns/d")], {
      indexers: {
        byLabel: (o) => {
          if (o.metadata?.labels?.bad) throw new Error("unindexable");
          return [o.metadata?.labels?.v ?? "none"];
        },
      },
    });
    const seen = recorder();
    informer.addEventHandler(seen.handler);
    const cache = informer.getIndexer();
    const replacedAside = spyOn(Indexer.prototype, "replaceByKey");
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "synced and watching");
    const unchanged = cache.getByKey("ns/a");
    await clock.advance(5_000);
    lw.endStreams();
    lw.update(obj("ns/b", { labels: { v: "2" } }));
    lw.update(obj("ns/c", { labels: { bad: "yes" } }));
    lw.deleteSilently("ns/d");
    lw.compact();
    await eventually(() => seen.log.length === 6, "the relist handled", 30_000);
    const replacedAsideCalls = replacedAside.mock.calls.length;
    replacedAside.mockRestore();
    // As when the cache is built aside: the object left out is gone from it, with no notification.
    expect(seen.log.slice(4)).toEqual(["delete tombstone ns/d", "update b"]);
    expect(cache.listKeys().sort()).toEqual(["ns/a", "ns/b"]);
    expect(cache.getByKey("ns/a")).toBe(unchanged as KubeObject);
    expect(cache.byIndex("byLabel", "2").map((o) => o.metadata?.name)).toEqual(["b"]);
    expect(cache.byIndex("byLabel", "none").map((o) => o.metadata?.name)).toEqual(["a"]);
    expect(cache.lastStoreSyncResourceVersion()).toBe(lw.currentResourceVersion);
    expect(replacedAsideCalls).toBe(0);
    await stop();
  });

  test("a bookmark moves the cache's resourceVersion on, in order with the events", async () => {
    const { lw, informer, run, stop } = setup();
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "synced and watching");
    lw.create(obj("ns/c"));
    // Changes outside the informer's view move the collection's resourceVersion without an event.
    lw.deleteSilently("ns/c");
    lw.sendBookmark();
    await eventually(() => informer.lastSyncResourceVersion === lw.currentResourceVersion, "bookmark seen");
    await eventually(() => informer.getIndexer().lastStoreSyncResourceVersion() === lw.currentResourceVersion, "bookmark applied to the cache");
    expect(informer.getIndexer().getByKey("ns/c")).toBeDefined();
    await stop();
  });

  test("a name given before the start is the one it reports under; once started, it keeps its name", async () => {
    const { lw, informer, run, stop } = setup();
    informer.rename("pods.v1{metadataOnly}");
    lw.failNextWatch(new Error("refused"));
    run();
    await eventually(() => informer.counters.errors === 1, "the failure reported");
    expect(informer.name).toBe("pods.v1{metadataOnly}");
    expect(() => informer.rename("other")).toThrow("informer pods.v1{metadataOnly} has already started; cannot rename it other");
    await stop();
  });

  test("objects are cached without managedFields by default, or through a custom transform", async () => {
    const fat = obj("ns/a", { managedFields: [{ manager: "kubectl" }] });
    const plain = setup([fat]);
    plain.run();
    await eventually(() => plain.informer.hasSynced(), "synced");
    expect(plain.informer.getStore().getByKey("ns/a")?.metadata).not.toHaveProperty("managedFields");
    await plain.stop();

    const custom = setup([fat], { transform: (o) => ({ ...o, kind: "Slim" }) });
    custom.run();
    await eventually(() => custom.informer.hasSynced(), "synced");
    expect(custom.informer.getStore().getByKey("ns/a")?.kind).toBe("Slim");
    await custom.stop();
  });

  test("the watch error handler hears failures; indexers and the handler are fixed at start", async () => {
    const { clock, lw, informer, run, stop } = setup();
    const errors: unknown[] = [];
    informer.setWatchErrorHandler((err) => errors.push(err));
    informer.addIndexers({ byName: (o) => [o.metadata?.name ?? ""] });
    run();
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "synced and watching");
    expect(() => informer.addIndexers({ other: () => [] })).toThrow("already started");
    expect(() => informer.setWatchErrorHandler(() => {})).toThrow("already started");
    await expect(informer.run(new AbortController().signal)).rejects.toThrow("already started");
    expect(informer.getIndexer().byIndex("byName", "a")).toHaveLength(1);
    await clock.advance(5_000);
    lw.breakStreams();
    await eventually(() => errors.length === 1, "error reported");
    expect(informer.counters.errors).toBe(1);
    await stop();
    expect(() => informer.addEventHandler({})).toThrow("stopped");
  });
  test("a big list is processed in time slices: a timer set during the replace fires before the handlers have seen it all", async () => {
    const count = 20_000;
    let handled = 0;
    let handledWhenTimerFired: number | undefined;
    let timerSet = false;
    const { informer, run, stop } = setup(
      Array.from({ length: count }, (_, i) => obj(`ns/cm-${i}`)),
      {
        clock: undefined,
        // The transform runs once per object, as the list streams in.
        transform: (o) => {
          if (!timerSet) {
            timerSet = true;
            setTimeout(() => (handledWhenTimerFired = handled), 0);
          }
          return o;
        },
      },
    );
    // A due timer may wait about two slices (10 ms) before Bun runs it, and a warm JIT hands 20,000
    // objects to a handler in less: every 500th costs 1 ms more, 40 ms in all whatever the compiler does.
    const slowEvery500th = () => {
      if (handled % 500 === 0) for (const start = performance.now(); performance.now() - start < 1; );
    };
    informer.addEventHandler({ onAdd: () => void (slowEvery500th(), handled++) });
    run();
    await eventually(() => informer.hasSynced() && handledWhenTimerFired !== undefined, "synced and the timer fired", 30_000);
    expect(handled).toBe(count);
    expect(handledWhenTimerFired).toBeLessThan(count);
    await stop();
  });
});
