import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../kube/objects.ts";
import { obj } from "../../test/support/objects.ts";
import { DeltaFIFO } from "./delta-fifo.ts";
import { type Delta, DeletedFinalStateUnknown } from "./deltas.ts";
import { Indexer } from "./indexer.ts";

const v = (key: string, rv: string) => obj(key, { resourceVersion: rv });

/** Pops one key; returns its deltas as "Type:rv" (tombstones as "Type:tombstone(rv)") and the initial-list flag. */
async function popOne(fifo: DeltaFIFO) {
  let popped: { deltas: Delta[]; isInInitialList: boolean } | undefined;
  await fifo.pop((deltas, isInInitialList) => {
    popped = { deltas, isInInitialList };
  });
  if (!popped) throw new Error("nothing popped");
  return {
    deltas: popped.deltas.map(show),
    isInInitialList: popped.isInInitialList,
  };
}

function showObject(o: KubeObject | DeletedFinalStateUnknown): string {
  return o instanceof DeletedFinalStateUnknown ? `tombstone(${o.key}@${o.obj.metadata?.resourceVersion})` : `${o.metadata?.resourceVersion}`;
}
const show = (d: Delta) => `${d.type}:${showObject(d.object)}`;

describe("DeltaFIFO", () => {
  test("keys come out in arrival order, each with all its deltas in order", async () => {
    const fifo = new DeltaFIFO();
    fifo.add(v("ns/a", "1"));
    fifo.update(v("ns/b", "2"));
    fifo.update(v("ns/a", "3"));
    expect((await popOne(fifo)).deltas).toEqual(["Added:1", "Updated:3"]);
    expect((await popOne(fifo)).deltas).toEqual(["Updated:2"]);
    // A key popped and changed again queues anew, at the back.
    fifo.update(v("ns/b", "4"));
    fifo.update(v("ns/a", "5"));
    expect((await popOne(fifo)).deltas).toEqual(["Updated:4"]);
  });

  test("replace emits Replaced for listed objects and tombstones for cached or queued keys missing from the list", async () => {
    const known = new Indexer();
    known.add(v("ns/cached-gone", "1"));
    known.add(v("ns/kept", "2"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.add(v("ns/queued-gone", "3"));
    fifo.replace([v("ns/kept", "4"), v("ns/new", "5")], "10");
    const popped = [await popOne(fifo), await popOne(fifo), await popOne(fifo), await popOne(fifo)].map((p) => p.deltas);
    expect(popped).toEqual([
      ["Added:3", "Deleted:tombstone(ns/queued-gone@3)"],
      ["Replaced:4"],
      ["Replaced:5"],
      ["Deleted:tombstone(ns/cached-gone@1)"],
    ]);
  });

  test("resync queues Sync for cached objects without pending deltas", async () => {
    const known = new Indexer();
    known.add(v("ns/a", "1"));
    known.add(v("ns/b", "2"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.update(v("ns/b", "3"));
    fifo.resync();
    expect((await popOne(fifo)).deltas).toEqual(["Updated:3"]);
    expect((await popOne(fifo)).deltas).toEqual(["Sync:1"]);
  });

  test("two consecutive deletions collapse, keeping the observed one over a tombstone", async () => {
    const known = new Indexer();
    known.add(v("ns/observed-first", "1"));
    known.add(v("ns/tombstone-first", "1"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.delete(v("ns/observed-first", "2"));
    fifo.replace([], "3");
    fifo.delete(v("ns/tombstone-first", "4"));
    expect((await popOne(fifo)).deltas).toEqual(["Deleted:2"]);
    expect((await popOne(fifo)).deltas).toEqual(["Deleted:4"]);
  });

  test("nothing but consecutive deletions is merged", async () => {
    const known = new Indexer();
    known.add(v("ns/a", "1"));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.update(v("ns/a", "2"));
    fifo.update(v("ns/a", "3"));
    fifo.delete(v("ns/a", "4"));
    fifo.add(v("ns/a", "5"));
    fifo.delete(v("ns/a", "6"));
    expect((await popOne(fifo)).deltas).toEqual(["Updated:2", "Updated:3", "Deleted:4", "Added:5", "Deleted:6"]);
  });

  test("a deletion of an object neither cached nor queued is dropped", async () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    fifo.delete(v("ns/ghost", "1"));
    fifo.add(v("ns/real", "2"));
    expect((await popOne(fifo)).deltas).toEqual(["Added:2"]);
  });

  test("hasSynced once every key of the first replace has been processed", async () => {
    const fifo = new DeltaFIFO({ knownObjects: new Indexer() });
    expect(fifo.hasSynced()).toBe(false);
    fifo.replace([v("ns/a", "1"), v("ns/b", "2")], "2");
    fifo.add(v("ns/c", "3"));
    expect(fifo.hasSynced()).toBe(false);
    expect(await popOne(fifo)).toEqual({ deltas: ["Replaced:1"], isInInitialList: true });
    expect(fifo.hasSynced()).toBe(false);
    let syncedDuringProcess = true;
    await fifo.pop(() => {
      syncedDuringProcess = fifo.hasSynced();
    });
    expect(syncedDuringProcess).toBe(false);
    expect(fifo.hasSynced()).toBe(true);
    expect(await popOne(fifo)).toEqual({ deltas: ["Added:3"], isInInitialList: false });
  });

  test("an empty first list syncs at once", () => {
    const fifo = new DeltaFIFO();
    fifo.replace([], "1");
    expect(fifo.hasSynced()).toBe(true);
  });

  test("transform applies to incoming objects, not to resyncs or tombstones", async () => {
    const known = new Indexer();
    known.add(v("ns/cached", "1"));
    known.add(v("ns/gone", "1"));
    let calls = 0;
    const fifo = new DeltaFIFO({
      knownObjects: known,
      transform: (o) => {
        calls++;
        return { ...o, kind: "Transformed" };
      },
    });
    fifo.add(v("ns/new", "2"));
    fifo.resync();
    fifo.delete(new DeletedFinalStateUnknown("ns/gone", v("ns/gone", "1")));
    expect(calls).toBe(1);
    let kinds: (string | undefined)[] = [];
    await fifo.pop((deltas) => {
      kinds = deltas.map((d) => (d.object instanceof DeletedFinalStateUnknown ? "tombstone" : d.object.kind));
    });
    expect(kinds).toEqual(["Transformed"]);
  });

  test("pop waits for a key, and resolves false when its signal aborts", async () => {
    const fifo = new DeltaFIFO();
    const seen: string[] = [];
    const popping = fifo.pop((deltas) => void seen.push(...deltas.map(show)));
    await Promise.resolve();
    expect(seen).toEqual([]);
    fifo.add(v("ns/a", "1"));
    expect(await popping).toBe(true);
    expect(seen).toEqual(["Added:1"]);

    const controller = new AbortController();
    const waiting = fifo.pop(() => {
      throw new Error("must not process");
    }, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });

  test("popReady takes a ready key at once with its cache key, and nothing while none is ready or a replace runs", async () => {
    const fifo = new DeltaFIFO();
    const seen: string[] = [];
    const record = (deltas: Delta[], isInInitialList: boolean, key: string) => void seen.push(`${key} ${deltas.map(show).join(",")} ${isInInitialList}`);
    expect(fifo.popReady(record)).toBe(false);
    const replacing = fifo.replace([v("ns/a", "1"), v("ns/b", "2")], "2");
    expect(fifo.popReady(record)).toBe(false);
    await replacing;
    expect(fifo.popReady(record)).toBe(true);
    expect(fifo.hasSynced()).toBe(false);
    expect(fifo.popReady(record)).toBe(true);
    expect(fifo.hasSynced()).toBe(true);
    expect(seen).toEqual(["ns/a Replaced:1 true", "ns/b Replaced:2 true"]);
  });
  test("a big replace runs in time slices: a timer due meanwhile fires before it ends, and a pop waits for it to end", async () => {
    // The replace looks for deletions among the known objects only once every listed object is queued.
    let deletionsChecked = false;
    const fifo = new DeltaFIFO({
      knownObjects: {
        listKeys: () => {
          deletionsChecked = true;
          return [];
        },
        getByKey: () => undefined,
      },
    });
    const list = Array.from({ length: 100_000 }, (_, i) => v(`ns/o-${i}`, "1"));
    let timerFiredBeforeEnd: boolean | undefined;
    let poppedBeforeEnd: boolean | undefined;
    setTimeout(() => (timerFiredBeforeEnd = !deletionsChecked), 0);
    const popping = fifo.pop(() => {
      poppedBeforeEnd = !deletionsChecked;
    });
    await fifo.replace(list, "1");
    await popping;
    expect(timerFiredBeforeEnd).toBe(true);
    expect(poppedBeforeEnd).toBe(false);
    expect(fifo.hasSynced()).toBe(false);
  });
});
