import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { ApiError, TransportError } from "../kube/errors.ts";
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject, WatchEvent } from "../kube/objects.ts";
import { watchStream } from "../kube/watch-stream.ts";
import { eventually, settle } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { obj } from "../../test/support/objects.ts";
import { Indexer } from "./indexer.ts";
import { Reflector, type ReflectorOptions, initialEventsEndAnnotation } from "./reflector.ts";
import { isExpectedError } from "../errors/expected-error.ts";
import { VeryShortWatchError, WatchIdleError } from "./reflector-errors.ts";

const expired = () => new ApiError(410, "Expired", "too old resource version", "GET", "/fake");
/** What an API server answers when asked for a resourceVersion its watch cache has not reached. */
const tooLarge = () =>
  ApiError.fromStatus(
    { code: 504, reason: "Timeout", message: "Too large resource version: 900, current: 120", details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] } },
    "GET",
    "/fake",
  );
const internalError = () => new ApiError(500, "InternalError", "etcd hiccup", "GET", "/fake");

function start(
  options: { objects?: number; reflector?: ReflectorOptions; watchList?: "supported" | "rejected" | "ignored"; firstWatchFails?: Error } = {},
) {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher(Array.from({ length: options.objects ?? 3 }, (_, i) => obj(`ns/pod-${i}`)));
  if (options.watchList) lw.watchListSupport = options.watchList;
  if (options.firstWatchFails) lw.failNextWatch(options.firstWatchFails);
  const store = new Indexer();
  const errors: unknown[] = [];
  // Most tests here are about LIST and WATCH; the streaming-list tests turn streaming (the default) back on.
  const reflector = new Reflector(lw, store, { clock, random: () => 0, onError: (err) => errors.push(err), useWatchList: false, ...options.reflector });
  const controller = new AbortController();
  const running = reflector.run(controller.signal);
  const stop = async () => {
    controller.abort();
    await running;
  };
  return { clock, lw, store, reflector, errors, stop };
}

const keys = (store: Indexer) => store.listKeys().sort();

describe("Reflector", () => {
  test("lists first at resourceVersion 0 (with a limit, which the watch cache ignores), then watches from the list's resourceVersion", async () => {
    const { lw, store, reflector, stop } = start({ reflector: { random: () => 0.999 } });
    await eventually(() => lw.watchCalls.length === 1, "first watch");
    expect(lw.listCalls).toEqual([{ resourceVersion: "0", limit: 500 }]);
    expect(keys(store)).toEqual(["ns/pod-0", "ns/pod-1", "ns/pod-2"]);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.lastSyncResourceVersion).toBe(lw.currentResourceVersion);
    expect(lw.watchCalls[0]).toEqual({ resourceVersion: lw.currentResourceVersion, allowWatchBookmarks: true, timeoutSeconds: 599 });
    await stop();
  });

  test("watch timeouts are random in [300, 600) seconds", async () => {
    const { lw, stop } = start();
    await eventually(() => lw.watchCalls.length === 1, "first watch");
    expect(lw.watchCalls[0]?.timeoutSeconds).toBe(300);
    await stop();
  });

  test("watch events update the store and the last synced resourceVersion", async () => {
    const { lw, store, reflector, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    lw.create(obj("ns/new"));
    lw.update(obj("ns/pod-0", { labels: { changed: "yes" } }));
    lw.delete("ns/pod-1");
    await eventually(() => reflector.lastSyncResourceVersion === lw.currentResourceVersion, "events applied");
    expect(keys(store)).toEqual(["ns/new", "ns/pod-0", "ns/pod-2"]);
    expect(store.getByKey("ns/pod-0")?.metadata?.labels).toEqual({ changed: "yes" });
    await stop();
  });

  test("a bookmark only advances the resourceVersion", async () => {
    const { lw, store, reflector, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    lw.deleteSilently("ns/pod-0");
    lw.sendBookmark();
    await eventually(() => reflector.lastSyncResourceVersion === lw.currentResourceVersion, "bookmark applied");
    expect(keys(store)).toContain("ns/pod-0");
    await stop();
  });

  test("410 on watch: relists at once from the watch cache (the last synced resourceVersion, no limit), then watches from the new list", async () => {
    const { clock, lw, store, reflector, errors, stop } = start({ objects: 6, reflector: { pageSize: 2 } });
    await eventually(() => lw.openWatches === 1, "watch");
    const synced = reflector.lastSyncResourceVersion;
    await clock.advance(5_000);
    lw.endStreams();
    lw.deleteSilently("ns/pod-5");
    lw.compact();
    await eventually(() => lw.listCalls.length === 2 && lw.openWatches === 1, "relist and re-watch");
    expect(lw.listCalls[1]).toEqual({ resourceVersion: synced });
    expect(keys(store)).toEqual(["ns/pod-0", "ns/pod-1", "ns/pod-2", "ns/pod-3", "ns/pod-4"]);
    expect(lw.watchCalls.at(-1)?.resourceVersion).toBe(lw.currentResourceVersion);
    expect(reflector.counters).toMatchObject({ lists: 2, relists: 1, errors: 0 });
    expect(errors).toEqual([]);
    await stop();
  });

  test("an in-stream 410 ERROR event relists from the watch cache too", async () => {
    const { lw, reflector, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    const synced = reflector.lastSyncResourceVersion;
    lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
    await eventually(() => lw.listCalls.length === 2, "relist");
    expect(lw.listCalls[1]).toEqual({ resourceVersion: synced });
    expect(reflector.counters.relists).toBe(1);
    await stop();
  });

  test("every relist after a 410 asks the watch cache again: consistent reads are not for good", async () => {
    const { clock, lw, reflector, stop } = start();
    const relistAfter410 = async (lists: number) => {
      await eventually(() => lw.openWatches === 1, "watch");
      lw.create(obj(`ns/new-${lists}`));
      await eventually(() => reflector.lastSyncResourceVersion === lw.currentResourceVersion, "event applied");
      const synced = reflector.lastSyncResourceVersion;
      await clock.advance(5_000);
      lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
      await eventually(() => lw.listCalls.length === lists, "relist");
      return { synced, listed: lw.listCalls.at(-1) };
    };
    const first = await relistAfter410(2);
    expect(first.listed).toEqual({ resourceVersion: first.synced });
    const second = await relistAfter410(3);
    expect(second.listed).toEqual({ resourceVersion: second.synced });
    await stop();
  });

  test("a list answered with 410 is retried at once as a consistent read; the relist after that asks the watch cache again", async () => {
    const { clock, lw, reflector, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    const before = reflector.lastSyncResourceVersion;
    lw.failNextList(expired());
    lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
    await eventually(() => lw.listCalls.length === 3 && lw.openWatches === 1, "relist, refused, consistent read");
    expect(lw.listCalls.slice(1)).toEqual([{ resourceVersion: before }, {}]);
    expect(errors).toEqual([]);
    lw.create(obj("ns/later"));
    await eventually(() => reflector.lastSyncResourceVersion === lw.currentResourceVersion, "event applied");
    const after = reflector.lastSyncResourceVersion;
    await clock.advance(5_000);
    lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
    await eventually(() => lw.listCalls.length === 4, "next relist");
    expect(lw.listCalls[3]).toEqual({ resourceVersion: after });
    await stop();
  });

  test("a list answered with Too large resource version is retried at once as a consistent read", async () => {
    const { lw, reflector, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    const before = reflector.lastSyncResourceVersion;
    lw.failNextList(tooLarge());
    lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
    await eventually(() => lw.listCalls.length === 3 && lw.openWatches === 1, "relist, refused, consistent read");
    expect(lw.listCalls.slice(1)).toEqual([{ resourceVersion: before }, {}]);
    expect(errors).toEqual([]);
    await stop();
  });

  test("without a watch cache (the first list came back in pages) relists page too, and a continue token expiring mid-way restarts as one full list", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher(Array.from({ length: 5 }, (_, i) => obj(`ns/pod-${i}`)));
    lw.watchCache = false;
    const store = new Indexer();
    const reflector = new Reflector(lw, store, { clock, random: () => 0, pageSize: 2, useWatchList: false });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    await eventually(() => lw.openWatches === 1, "watch");
    expect(lw.listCalls).toEqual([{ resourceVersion: "0", limit: 2 }, { limit: 2, continue: "2" }, { limit: 2, continue: "4" }]);
    const synced = reflector.lastSyncResourceVersion;
    await clock.advance(5_000);
    lw.expireContinueTokens();
    lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
    await eventually(() => lw.listCalls.length === 6 && lw.openWatches === 1, "relist");
    expect(lw.listCalls.slice(3)).toEqual([{ resourceVersion: synced, limit: 2 }, { limit: 2, continue: "2" }, { resourceVersion: synced }]);
    expect(keys(store)).toHaveLength(5);
    controller.abort();
    await running;
  });

  test("a watch the server ends is reopened from the last resourceVersion without relisting", async () => {
    const { clock, lw, reflector, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    lw.create(obj("ns/new"));
    await eventually(() => reflector.lastSyncResourceVersion === lw.currentResourceVersion, "event");
    await clock.advance(5_000);
    lw.endStreams();
    await eventually(() => lw.watchCalls.length === 2, "re-watch");
    expect(lw.watchCalls[1]?.resourceVersion).toBe(lw.currentResourceVersion);
    expect(lw.listCalls).toHaveLength(1);
    expect(errors).toEqual([]);
    await stop();
  });

  test("a broken stream backs off, then re-watches from the last resourceVersion without relisting", async () => {
    const { clock, lw, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    const rv = lw.currentResourceVersion;
    lw.breakStreams();
    await eventually(() => errors.length === 1, "error reported");
    expect(errors[0]).toBeInstanceOf(TransportError);
    await clock.advance(799);
    await settle();
    expect(lw.watchCalls).toHaveLength(1);
    await clock.advance(1);
    await eventually(() => lw.watchCalls.length === 2, "re-watch after backoff");
    expect(lw.watchCalls[1]?.resourceVersion).toBe(rv);
    expect(lw.listCalls).toHaveLength(1);
    await stop();
  });

  test("a very short watch counts as a failure: after the backoff, which doubles each time, it relists", async () => {
    const { clock, lw, reflector, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    const synced = reflector.lastSyncResourceVersion;
    lw.endStreams();
    await eventually(() => errors.length === 1, "error");
    expect(errors[0]).toBeInstanceOf(VeryShortWatchError);
    // The server's doing, not a bug: logged as one line, without a stack.
    expect(isExpectedError(errors[0])).toBe(true);
    await clock.advance(799);
    await settle();
    expect(lw.listCalls).toHaveLength(1);
    await clock.advance(1);
    await eventually(() => lw.listCalls.length === 2 && lw.openWatches === 1, "relist and second watch");
    expect(lw.listCalls[1]).toEqual({ resourceVersion: synced });
    lw.endStreams();
    await eventually(() => errors.length === 2, "second error");
    await clock.advance(1599);
    await settle();
    expect(lw.listCalls).toHaveLength(2);
    await clock.advance(1);
    await eventually(() => lw.listCalls.length === 3 && lw.watchCalls.length === 3, "third list and watch");
    await stop();
  });

  test("429 or connection refused opening a watch: back off and re-watch at the same resourceVersion, no relist", async () => {
    const { clock, lw, reflector, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    const synced = reflector.lastSyncResourceVersion;
    lw.failNextWatch(new ApiError(429, "TooManyRequests", "slow down", "GET", "/fake"));
    lw.failNextWatch(new TransportError("GET https://fake: connection refused", "https://fake", "ECONNREFUSED"));
    await clock.advance(5_000);
    lw.endStreams();
    await eventually(() => errors.length === 1, "429 reported");
    await clock.advance(800);
    await eventually(() => errors.length === 2, "refusal reported");
    await clock.advance(1600);
    await eventually(() => lw.openWatches === 1, "re-watch");
    expect(lw.watchCalls.slice(1).map((w) => w.resourceVersion)).toEqual([synced, synced, synced]);
    expect(lw.listCalls).toHaveLength(1);
    await stop();
  });

  test("any other failure to open a watch (500, timeout, Too large resource version) relists after the backoff", async () => {
    for (const failure of [internalError(), new TransportError("GET https://fake: request timed out", "https://fake", "TimeoutError"), tooLarge()]) {
      const { clock, lw, reflector, errors, stop } = start();
      await eventually(() => lw.openWatches === 1, "watch");
      const synced = reflector.lastSyncResourceVersion;
      lw.failNextWatch(failure);
      await clock.advance(5_000);
      lw.endStreams();
      await eventually(() => errors.length === 1, "failure reported");
      expect(errors[0]).toBe(failure);
      await clock.advance(800);
      await eventually(() => lw.listCalls.length === 2 && lw.openWatches === 1, `relist after ${failure.message}`);
      expect(lw.listCalls[1]).toEqual({ resourceVersion: synced });
      await stop();
    }
  });

  test("an ERROR event other than 410 and 429 (500, Too large resource version) relists after the backoff instead of re-watching at the same resourceVersion", async () => {
    for (const status of [
      { code: 500, reason: "InternalError", message: "etcd hiccup" },
      { code: 504, reason: "Timeout", message: "Too large resource version: 900, current: 120", details: { causes: [{ reason: "ResourceVersionTooLarge" }] } },
    ]) {
      const { clock, lw, reflector, errors, stop } = start();
      await eventually(() => lw.openWatches === 1, "watch");
      const synced = reflector.lastSyncResourceVersion;
      lw.sendError(status);
      await eventually(() => errors.length === 1, "error");
      expect((errors[0] as ApiError).code).toBe(status.code);
      await clock.advance(800);
      await eventually(() => lw.listCalls.length === 2 && lw.openWatches === 1, `relist after ${status.reason}`);
      expect(lw.listCalls[1]).toEqual({ resourceVersion: synced });
      expect(lw.watchCalls).toHaveLength(2);
      await stop();
    }
  });

  test("a 429 ERROR event backs off and re-watches without relisting", async () => {
    const { clock, lw, errors, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    lw.sendError({ code: 429, reason: "TooManyRequests", message: "slow down" });
    await eventually(() => errors.length === 1, "error");
    await clock.advance(800);
    await eventually(() => lw.watchCalls.length === 2 && lw.openWatches === 1, "re-watch");
    expect(lw.listCalls).toHaveLength(1);
    await stop();
  });

  test("a failed list backs off and lists again", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher([obj("ns/a")]);
    lw.failNextList(new TransportError("refused", "https://fake", "ECONNREFUSED"));
    const store = new Indexer();
    const controller = new AbortController();
    const running = new Reflector(lw, store, { clock, random: () => 0, useWatchList: false }).run(controller.signal);
    await eventually(() => lw.listCalls.length === 1, "first list");
    await settle();
    expect(lw.listCalls).toHaveLength(1);
    await clock.advance(800);
    await eventually(() => lw.openWatches === 1, "listed and watching");
    expect(lw.listCalls).toEqual([
      { resourceVersion: "0", limit: 500 },
      { resourceVersion: "0", limit: 500 },
    ]);
    controller.abort();
    await running;
  });

  test("a relist answered by 410 again backs off instead of hammering the server", async () => {
    const { clock, lw, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    lw.failNextWatch(expired());
    lw.failNextWatch(expired());
    await clock.advance(5_000);
    lw.endStreams();
    await eventually(() => lw.listCalls.length === 2 && lw.watchCalls.length === 3, "immediate relist, then 410 again");
    await settle();
    expect(lw.listCalls).toHaveLength(2);
    await clock.advance(800);
    await eventually(() => lw.listCalls.length === 3 && lw.openWatches === 1, "relist after backoff");
    await stop();
  });

  test("the watchdog abandons a silent watch and re-watches at once; any event resets it", async () => {
    const { clock, lw, reflector, errors, stop } = start({ reflector: { watchIdleTimeoutMs: 300_000 } });
    await eventually(() => lw.openWatches === 1, "watch");
    await clock.advance(200_000);
    lw.sendBookmark();
    await settle();
    await clock.advance(200_000);
    expect(lw.watchCalls).toHaveLength(1);
    await clock.advance(100_000);
    await eventually(() => lw.watchCalls.length === 2 && lw.openWatches === 1, "re-watch");
    expect(errors[0]).toBeInstanceOf(WatchIdleError);
    expect(isExpectedError(errors[0])).toBe(true);
    expect(reflector.counters.idleWatchAborts).toBe(1);
    expect(lw.listCalls).toHaveLength(1);
    await stop();
  });

  test("the watchdog works even when the stream ignores its abort signal", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher([obj("ns/a")]);
    let watches = 0;
    const deaf = {
      list: lw.list.bind(lw),
      async watch() {
        watches++;
        return { [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => {}) }) };
      },
    };
    const controller = new AbortController();
    const running = new Reflector(deaf, new Indexer(), { clock, watchIdleTimeoutMs: 1000, useWatchList: false }).run(controller.signal);
    await eventually(() => watches === 1, "watch");
    await clock.advance(1000);
    await eventually(() => watches === 2, "re-watch");
    controller.abort();
    await running;
  });

  test("by default a list is streamed: a watch with sendInitialEvents from no resourceVersion, stored at the initial-events-end bookmark, then watched on", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher([obj("ns/pod-0"), obj("ns/pod-1")]);
    const store = new Indexer();
    const reflector = new Reflector(lw, store, { clock, random: () => 0 });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    await eventually(() => reflector.hasSynced(), "synced");
    expect(lw.listCalls).toEqual([]);
    expect(lw.watchCalls).toEqual([{ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true, timeoutSeconds: 300 }]);
    expect(keys(store)).toEqual(["ns/pod-0", "ns/pod-1"]);
    expect(reflector.lastSyncResourceVersion).toBe(lw.currentResourceVersion);
    expect(store.lastStoreSyncResourceVersion()).toBe(lw.currentResourceVersion);
    lw.create(obj("ns/later"));
    await eventually(() => store.getByKey("ns/later") !== undefined, "event on the same stream");
    expect(lw.watchCalls).toHaveLength(1);
    expect(reflector.counters).toMatchObject({ lists: 1, watches: 1, errors: 0 });
    controller.abort();
    await running;
  });

  test("a streaming list read in batches: events after the initial-events-end bookmark in the same batch are applied as the watch's", async () => {
    const version = (name: string, resourceVersion: string) => ({ ...obj(name), metadata: { ...obj(name).metadata, resourceVersion } });
    const end: WatchEvent = { type: "BOOKMARK", object: { metadata: { resourceVersion: "12", annotations: { [initialEventsEndAnnotation]: "true" } } } };
    const batch: WatchEvent[] = [
      { type: "ADDED", object: version("ns/a", "10") },
      { type: "ADDED", object: version("ns/b", "11") },
      end,
      { type: "ADDED", object: version("ns/c", "13") },
      { type: "DELETED", object: version("ns/a", "14") },
    ];
    const controller = new AbortController();
    const lw: ListerWatcher = {
      list: () => Promise.reject(new Error("a streaming list was expected")),
      watch: async (_options, signal) =>
        watchStream(async function* () {
          yield batch;
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        }),
    };
    const store = new Indexer();
    const reflector = new Reflector(lw, store, { clock: new FakeClock(), random: () => 0 });
    const running = reflector.run(controller.signal);
    await eventually(() => reflector.lastSyncResourceVersion === "14", "the events after the bookmark");
    expect(keys(store)).toEqual(["ns/b", "ns/c"]);
    expect(reflector.counters).toMatchObject({ lists: 1, watches: 1, errors: 0 });
    controller.abort();
    await running;
  });

  test("a streaming list hands the store its objects with the keys they were gathered under", async () => {
    const lw = new FakeListerWatcher([obj("ns/pod-0"), obj("ns/pod-1"), obj("other/pod-0")]);
    const replaced: { names: string[]; keys: readonly string[] | undefined }[] = [];
    const store = new Indexer();
    const replace = store.replace.bind(store);
    store.replace = (items, resourceVersion, keys) => {
      replaced.push({ names: items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`), keys });
      return replace(items, resourceVersion, keys);
    };
    const reflector = new Reflector(lw, store, { clock: new FakeClock(), random: () => 0 });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    await eventually(() => reflector.hasSynced(), "synced");
    expect(replaced).toEqual([{ names: ["ns/pod-0", "ns/pod-1", "other/pod-0"], keys: ["ns/pod-0", "ns/pod-1", "other/pod-0"] }]);
    controller.abort();
    await running;
  });

  test("a server that refuses streaming lists gets a LIST for that list, and the next list is tried as a stream again", async () => {
    const { clock, lw, store, reflector, errors, stop } = start({ reflector: { useWatchList: true }, watchList: "rejected" });
    await eventually(() => reflector.hasSynced() && lw.openWatches === 1, "synced by LIST");
    expect(lw.listCalls).toEqual([{ resourceVersion: "0", limit: 500 }]);
    expect(keys(store)).toHaveLength(3);
    const synced = reflector.lastSyncResourceVersion;
    await clock.advance(5_000);
    lw.endStreams();
    lw.deleteSilently("ns/pod-0");
    lw.compact();
    await eventually(() => lw.listCalls.length === 2 && lw.openWatches === 1, "relist");
    expect(lw.watchCalls.map((w) => (w.sendInitialEvents ? `stream from ${w.resourceVersion}` : `watch from ${w.resourceVersion}`))).toEqual([
      "stream from undefined",
      `watch from ${synced}`,
      `watch from ${synced}`,
      `stream from ${synced}`,
      `watch from ${lw.currentResourceVersion}`,
    ]);
    expect(keys(store)).toEqual(["ns/pod-1", "ns/pod-2"]);
    // Neither refusal is a failure: the list went on by LIST at once, and counts once.
    expect(errors).toEqual([]);
    expect(reflector.counters).toMatchObject({ lists: 2, relists: 1, errors: 0 });
    await stop();
  });

  test("other errors on a streaming list: 500 or 403 go to LIST at once, 429 backs off and streams again", async () => {
    for (const failure of [internalError(), new ApiError(403, "Forbidden", "watch is forbidden", "GET", "/fake")]) {
      const { lw, reflector, errors, stop } = start({ reflector: { useWatchList: true }, firstWatchFails: failure });
      await eventually(() => reflector.hasSynced() && lw.openWatches === 1, `synced by LIST after ${failure.code}`);
      expect(lw.listCalls).toHaveLength(1);
      expect(errors).toEqual([]);
      await stop();
    }
    const { clock, lw, reflector, errors, stop } = start({
      reflector: { useWatchList: true },
      firstWatchFails: new ApiError(429, "TooManyRequests", "slow down", "GET", "/fake"),
    });
    await eventually(() => errors.length === 1, "429 reported");
    await clock.advance(800);
    await eventually(() => reflector.hasSynced(), "synced by a second stream");
    expect(lw.listCalls).toEqual([]);
    expect(lw.watchCalls.map((w) => w.sendInitialEvents)).toEqual([true, true]);
    await stop();
  });

  test("streaming list without the initial-events-end bookmark: that list is done by LIST after the timeout", async () => {
    const { clock, lw, store, reflector, stop } = start({ reflector: { useWatchList: true, watchListTimeoutMs: 10_000 }, watchList: "ignored" });
    await eventually(() => lw.watchCalls.length === 1, "streaming watch");
    await settle();
    expect(keys(store)).toEqual([]);
    await clock.advance(10_000);
    await eventually(() => reflector.hasSynced(), "synced by LIST");
    expect(lw.listCalls).toEqual([{ resourceVersion: "0", limit: 500 }]);
    await stop();
  });

  test("a streaming list whose bookmark came in time is not given up while the store takes long to fill: its watch goes on", async () => {
    const clock = new FakeClock();
    const lw = new FakeListerWatcher([obj("ns/pod-0")]);
    const store = new Indexer();
    let release = () => {};
    const filled = new Promise<void>((resolve) => (release = resolve));
    const slow = Object.assign(Object.create(store) as Indexer, {
      replace: async (items: readonly KubeObject[], resourceVersion: string) => {
        await filled;
        await store.replace(items, resourceVersion);
      },
    });
    const errors: unknown[] = [];
    const reflector = new Reflector(lw, slow, { clock, random: () => 0, watchListTimeoutMs: 10_000, onError: (err) => errors.push(err) });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    await eventually(() => lw.watchCalls.length === 1, "streaming list");
    await settle();
    await clock.advance(10_000);
    release();
    await eventually(() => reflector.hasSynced(), "synced");
    lw.create(obj("ns/later"));
    await eventually(() => store.getByKey("ns/later") !== undefined, "event on the same stream");
    expect(lw.watchCalls).toHaveLength(1);
    expect(lw.listCalls).toEqual([]);
    expect(errors).toEqual([]);
    controller.abort();
    await running;
  });

  test("streaming relist after a 410 starts from the last synced resourceVersion; refused again, it streams a consistent read", async () => {
    const { lw, reflector, stop } = start({ reflector: { useWatchList: true } });
    await eventually(() => reflector.hasSynced(), "synced");
    const synced = reflector.lastSyncResourceVersion;
    lw.failNextWatch(expired());
    lw.sendError({ code: 410, reason: "Expired", message: "too old resource version" });
    await eventually(() => lw.watchCalls.length === 3 && lw.openWatches === 1, "streaming relists");
    expect(lw.watchCalls.slice(1).map((w) => [w.sendInitialEvents, w.resourceVersion])).toEqual([
      [true, synced],
      [true, undefined],
    ]);
    expect(lw.listCalls).toEqual([]);
    await stop();
  });

  test("the transform applies to each object as it arrives, streamed, listed or watched: the store never sees an untransformed one", async () => {
    for (const watchList of ["supported", "rejected"] as const) {
      const seen: string[] = [];
      const slim = (o: KubeObject): KubeObject => (seen.push(o.metadata?.name ?? ""), { ...o, kind: "Slim" });
      const { lw, store, stop } = start({ watchList, reflector: { useWatchList: true, transform: slim } });
      await eventually(() => store.size === 3 && lw.openWatches === 1, `synced and watching (${watchList})`);
      lw.create(obj("ns/pod-3"));
      await eventually(() => store.size === 4, "the watched object");
      expect(store.list().map((o) => o.kind)).toEqual(["Slim", "Slim", "Slim", "Slim"]);
      expect(seen.sort()).toEqual(["pod-0", "pod-1", "pod-2", "pod-3"]);
      await stop();
    }
  });

  test("stops only when its signal aborts", async () => {
    const { lw, stop } = start();
    await eventually(() => lw.openWatches === 1, "watch");
    await stop();
    expect(lw.openWatches).toBe(0);
  });
});
