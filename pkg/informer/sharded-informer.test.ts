import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { KubeObject } from "../kube/objects.ts";
import { shardSelector } from "../sharding/hash-range.ts";
import { eventually, settle } from "../../test/support/eventually.ts";
import { FakeListerWatcher, parseNamespaceShardSelector } from "../../test/support/fake-lister-watcher.ts";
import { FakeNamespaceShare, rangesOfNamespaces } from "../../test/support/fake-namespace-share.ts";
import { obj } from "../../test/support/objects.ts";
import { DeletedFinalStateUnknown, DroppedFromShare } from "./deltas.ts";
import { type ResourceEventHandler, isResync } from "./event-handler.ts";
import { SharedIndexInformer } from "./shared-informer.ts";

/** A handler that records what it is told as short strings. */
function recorder() {
  const log: string[] = [];
  const handler: ResourceEventHandler<KubeObject> = {
    onAdd: (o) => void log.push(`add ${o.metadata?.namespace}/${o.metadata?.name}`),
    onUpdate: (old, cur) => void log.push(`${isResync(old, cur) ? "resync" : "update"} ${cur.metadata?.namespace}/${cur.metadata?.name}`),
    onDelete: (o) => void log.push(`delete ${o instanceof DroppedFromShare ? `dropped ${o.key}` : o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : o.metadata?.name}`),
  };
  return { log, handler };
}

const namespaces = (selector: string | undefined) => (selector === undefined ? undefined : parseNamespaceShardSelector(selector));

/** An informer over pods in namespaces n1…n4, holding `held`, with LIST (not streaming lists) so that lists are easy to count. */
function setup(held: string[], serverFilters: boolean) {
  const lw = new FakeListerWatcher([obj("n1/a"), obj("n2/b"), obj("n3/c"), obj("n4/d")]);
  lw.shardSelectorSupport = serverFilters ? "applied" : "ignored";
  const share = new FakeNamespaceShare(held);
  const informer = new SharedIndexInformer(lw, {
    clock: new FakeClock(),
    random: () => 0,
    name: "pods.v1",
    reflector: { useWatchList: false },
    shardPlan: async () => ({ share, serverFilters }),
  });
  const events = recorder();
  informer.addEventHandler(events.handler);
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  const keys = () => informer.getStore().listKeys().sort();
  return { lw, share, informer, events, keys, stop: () => (stop.abort(), running) };
}

describe("sharded informer, the API server filtering", () => {
  test("lists and watches only the share's ranges, and caches only its namespaces", async () => {
    const { lw, informer, keys, stop } = setup(["n1", "n2"], true);
    await eventually(() => informer.hasSynced(), "synced");
    expect(keys()).toEqual(["n1/a", "n2/b"]);
    const selector = shardSelector("object.metadata.namespace", rangesOfNamespaces(["n1", "n2"]));
    expect(lw.listCalls.map((c) => c.shardSelector)).toEqual([selector]);
    await eventually(() => lw.watchCalls.length === 1, "watching");
    expect(lw.watchCalls[0]?.shardSelector).toBe(selector);
    expect(informer.shardStatus).toEqual({ ranges: rangesOfNamespaces(["n1", "n2"]), syncedRanges: rangesOfNamespaces(["n1", "n2"]), serverFilters: true, segments: 1 });
    await stop();
  });

  test("a shrink drops only the lost namespaces, with delete notifications saying so, and lists nothing", async () => {
    const { lw, share, informer, events, keys, stop } = setup(["n1", "n2", "n3"], true);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    events.log.length = 0;
    share.hold(["n1", "n3"]);
    await eventually(() => events.log.length === 1, "the drop");
    expect(events.log).toEqual(["delete dropped n2/b"]);
    expect(keys()).toEqual(["n1/a", "n3/c"]);
    // The open watch still has the old selector: what it brings of n2 is dropped here.
    lw.create(obj("n2/late"));
    lw.create(obj("n1/e"));
    await eventually(() => keys().includes("n1/e"), "n1/e cached");
    expect(keys()).toEqual(["n1/a", "n1/e", "n3/c"]);
    expect(events.log).toEqual(["delete dropped n2/b", "add n1/e"]);
    expect(lw.listCalls.length).toBe(1);
    expect(informer.hasSyncedRanges(rangesOfNamespaces(["n1", "n3"]))).toBe(true);
    expect(informer.hasSyncedRanges(rangesOfNamespaces(["n2"]))).toBe(false);
    // The next watch asks for the narrower ranges.
    lw.endStreams();
    await eventually(() => lw.watchCalls.length === 2, "re-watched");
    expect(namespaces(lw.watchCalls[1]?.shardSelector)).toEqual(rangesOfNamespaces(["n1", "n3"]));
    await stop();
  });

  test("a growth lists only the added ranges and deletes nothing; the cache is synced for them once listed", async () => {
    const { lw, share, informer, events, keys, stop } = setup(["n1"], true);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    events.log.length = 0;
    share.hold(["n1", "n3", "n4"]);
    expect(informer.hasSyncedRanges(rangesOfNamespaces(["n3"]))).toBe(false);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(["n1", "n3", "n4"])), "added ranges synced");
    expect(keys()).toEqual(["n1/a", "n3/c", "n4/d"]);
    expect(events.log.sort()).toEqual(["add n3/c", "add n4/d"]);
    expect(lw.listCalls.map((c) => namespaces(c.shardSelector))).toEqual([rangesOfNamespaces(["n1"]), rangesOfNamespaces(["n3", "n4"])]);
    expect(informer.shardStatus?.segments).toBe(2);
    // Both segments watch: changes in either reach the cache.
    await eventually(() => lw.openWatches === 2, "two watches");
    lw.create(obj("n1/e"));
    lw.create(obj("n4/f"));
    await eventually(() => keys().length === 5, "both changes");
    await stop();
  });

  test("a relist of one segment leaves the other segments' objects alone", async () => {
    const { lw, share, informer, events, keys, stop } = setup(["n1", "n2"], true);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    share.hold(["n1", "n2", "n3"]);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(["n3"])) && lw.openWatches === 2, "second segment watching");
    events.log.length = 0;
    lw.deleteSilently("n3/c");
    lw.deleteSilently("n1/a");
    const lists = lw.listCalls.length;
    // Only the watch of n3 expires: its segment relists, with its own ranges.
    lw.sendErrorWhere((o) => namespaces(o.shardSelector)?.length === 1, { code: 410, reason: "Expired", message: "too old" });
    await eventually(() => lw.listCalls.length === lists + 1 && !keys().includes("n3/c"), "relisted");
    expect(namespaces(lw.listCalls.at(-1)?.shardSelector)).toEqual(rangesOfNamespaces(["n3"]));
    await settle();
    expect(events.log).toEqual(["delete tombstone n3/c"]);
    // n1/a is gone on the server too, but its segment did not relist: it stays until that one hears of it.
    expect(keys()).toEqual(["n1/a", "n2/b"]);
    await stop();
  });

  test("the cache's resourceVersion is the oldest of its segments'", async () => {
    const { lw, share, informer, stop } = setup(["n1"], true);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    const first = informer.getIndexer().lastStoreSyncResourceVersion();
    lw.create(obj("n4/e"));
    share.hold(["n1", "n4"]);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(["n4"])), "n4 synced");
    // The new segment listed at a later version, but the first has seen nothing since its list.
    expect(informer.getIndexer().lastStoreSyncResourceVersion()).toBe(first);
    const created = lw.create(obj("n1/f"));
    await eventually(() => informer.getIndexer().getByKey("n1/f") !== undefined, "n1/f cached");
    expect(informer.getIndexer().lastStoreSyncResourceVersion()).toBe(String(Number(created.metadata?.resourceVersion) - 1));
    await stop();
  });

  test("a namespace's resourceVersion is its own segment's: a quiet segment does not hold back a reader of another", async () => {
    const { lw, share, informer, stop } = setup(["n1"], true);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    const quiet = informer.getIndexer().lastStoreSyncResourceVersion("n1");
    share.hold(["n1", "n4"]);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(["n4"])), "n4 synced");
    const written = lw.create(obj("n4/e"));
    await eventually(() => informer.getIndexer().getByKey("n4/e") !== undefined, "n4/e cached");
    // A reader of n4 (a controller checking its own write there) sees n4's segment's version, not the oldest.
    expect(informer.getIndexer().lastStoreSyncResourceVersion("n4")).toBe(written.metadata?.resourceVersion ?? "");
    expect(informer.getIndexer().lastStoreSyncResourceVersion("n1")).toBe(quiet);
    await stop();
  });

  test("beyond four segments, the whole share is listed again in one", async () => {
    const { lw, share, informer, events, keys, stop } = setup(["n1"], true);
    await eventually(() => informer.hasSynced(), "synced");
    const held = ["n1"];
    for (const next of ["n2", "n3", "n4"]) {
      held.push(next);
      share.hold(held);
      await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(held)), `${next} synced`);
    }
    expect(informer.shardStatus?.segments).toBe(4);
    events.log.length = 0;
    share.hold([...held, "n5"]);
    expect(informer.hasSyncedRanges(rangesOfNamespaces(held))).toBe(true);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces([...held, "n5"])), "all synced");
    expect(informer.shardStatus?.segments).toBe(1);
    expect(namespaces(lw.listCalls.at(-1)?.shardSelector)).toEqual(rangesOfNamespaces([...held, "n5"]));
    expect(keys()).toEqual(["n1/a", "n2/b", "n3/c", "n4/d"]);
    // Unchanged objects were kept as they were: no handler heard anything.
    await settle();
    expect(events.log).toEqual([]);
    await stop();
  });

  test("a share emptied and refilled: everything dropped, then only the new namespaces listed", async () => {
    const { lw, share, informer, events, keys, stop } = setup(["n1", "n2"], true);
    await eventually(() => informer.hasSynced(), "synced");
    events.log.length = 0;
    share.hold([]);
    await eventually(() => keys().length === 0, "emptied");
    expect(events.log.sort()).toEqual(["delete dropped n1/a", "delete dropped n2/b"]);
    expect(informer.shardStatus?.segments).toBe(0);
    share.hold(["n3"]);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(["n3"])), "n3 synced");
    expect(keys()).toEqual(["n3/c"]);
    expect(namespaces(lw.listCalls.at(-1)?.shardSelector)).toEqual(rangesOfNamespaces(["n3"]));
    await stop();
  });

  test("a share that holds nothing still syncs, with an empty cache, and lists nothing", async () => {
    const { lw, informer, keys, stop } = setup([], true);
    await eventually(() => informer.hasSynced(), "synced");
    expect(keys()).toEqual([]);
    expect(lw.listCalls.length).toBe(0);
    await stop();
  });
});

describe("sharded informer, the API server ignoring shardSelector", () => {
  test("objects outside the share never reach the cache or the handlers", async () => {
    const { lw, informer, events, keys, stop } = setup(["n1", "n3"], false);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    expect(lw.listCalls.map((c) => c.shardSelector)).toEqual([undefined]);
    expect(keys()).toEqual(["n1/a", "n3/c"]);
    lw.create(obj("n2/x"));
    lw.create(obj("n3/y"));
    await eventually(() => keys().includes("n3/y"), "n3/y cached");
    expect(keys()).toEqual(["n1/a", "n3/c", "n3/y"]);
    expect(events.log.sort()).toEqual(["add n1/a", "add n3/c", "add n3/y"]);
    expect(informer.shardStatus?.serverFilters).toBe(false);
    await stop();
  });

  test("a growth lists everything once more in the one segment, adds only the new namespaces and deletes nothing", async () => {
    const { lw, share, informer, events, keys, stop } = setup(["n1"], false);
    await eventually(() => informer.hasSynced() && lw.openWatches === 1, "watching");
    events.log.length = 0;
    share.hold(["n1", "n2"]);
    await eventually(() => informer.hasSyncedRanges(rangesOfNamespaces(["n2"])), "n2 synced");
    expect(keys()).toEqual(["n1/a", "n2/b"]);
    await settle();
    expect(events.log).toEqual(["add n2/b"]);
    expect(lw.listCalls.length).toBe(2);
    expect(informer.shardStatus?.segments).toBe(1);
    await stop();
  });
});
