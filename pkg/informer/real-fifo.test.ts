import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { KubeObject } from "../kube/objects.ts";
import { obj } from "../../test/support/objects.ts";
import { type Delta, DeletedFinalStateUnknown } from "./deltas.ts";
import { RealFifo } from "./real-fifo.ts";

const v = (key: string, rv: string) => obj(key, { resourceVersion: rv });

function showObject(o: KubeObject | DeletedFinalStateUnknown): string {
  return o instanceof DeletedFinalStateUnknown ? `tombstone(${o.key})` : `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
}

function show(d: Delta): string {
  switch (d.type) {
    case "ReplacedAll":
      return `ReplacedAll[${d.objects.map(showObject).join(",")}]@${d.resourceVersion}`;
    case "SyncAll":
    case "ShareNarrowed":
      return d.type;
    case "Bookmark":
      return `Bookmark@${d.resourceVersion}`;
    default:
      return `${d.type}:${showObject(d.object)}`;
  }
}

/** Pops one entry; returns it as a short string and the initial-list flag. */
async function popOne(fifo: RealFifo) {
  let popped: { delta: string; isInInitialList: boolean } | undefined;
  await fifo.pop((delta, isInInitialList) => {
    popped = { delta: show(delta), isInInitialList };
  });
  if (!popped) throw new Error("nothing popped");
  return popped;
}

async function drain(fifo: RealFifo): Promise<string[]> {
  const seen: string[] = [];
  while (fifo.length > 0) seen.push((await popOne(fifo)).delta);
  return seen;
}

describe("RealFifo", () => {
  test("every change comes out on its own, in the order it happened, whatever its key", async () => {
    const fifo = new RealFifo();
    fifo.add(v("ns/a", "1"));
    fifo.update(v("ns/b", "2"));
    fifo.update(v("ns/a", "3"));
    fifo.delete(v("ns/a", "4"));
    fifo.delete(v("ns/a", "5"));
    expect(await drain(fifo)).toEqual(["Added:a@1", "Updated:b@2", "Updated:a@3", "Deleted:a@4", "Deleted:a@5"]);
  });

  test("a replace, a resync and a bookmark are one entry each, in line with the events around them", async () => {
    const fifo = new RealFifo();
    fifo.add(v("ns/a", "1"));
    await fifo.replace([v("ns/a", "1"), v("ns/b", "2")], "7");
    fifo.update(v("ns/b", "8"));
    fifo.resync();
    fifo.bookmark("9");
    expect(fifo.length).toBe(5);
    expect(await drain(fifo)).toEqual(["Added:a@1", "ReplacedAll[a@1,b@2]@7", "Updated:b@8", "SyncAll", "Bookmark@9"]);
  });

  test("hasSynced once the first replace, and everything queued before it, has been processed", async () => {
    const fifo = new RealFifo();
    expect(fifo.hasSynced()).toBe(false);
    fifo.add(v("ns/early", "1"));
    await fifo.replace([v("ns/a", "2")], "2");
    fifo.add(v("ns/late", "3"));
    expect(await popOne(fifo)).toEqual({ delta: "Added:early@1", isInInitialList: true });
    expect(fifo.hasSynced()).toBe(false);
    let syncedDuringProcess = true;
    await fifo.pop(() => {
      syncedDuringProcess = fifo.hasSynced();
    });
    expect(syncedDuringProcess).toBe(false);
    expect(fifo.hasSynced()).toBe(true);
    expect(await popOne(fifo)).toEqual({ delta: "Added:late@3", isInInitialList: false });
    await fifo.replace([], "4");
    expect(await popOne(fifo)).toEqual({ delta: "ReplacedAll[]@4", isInInitialList: false });
  });

  test("transform applies to incoming objects, listed ones included, and not to tombstones", async () => {
    let calls = 0;
    const fifo = new RealFifo({
      transform: (o) => {
        calls++;
        return { ...o, metadata: { ...o.metadata, resourceVersion: `t${o.metadata?.resourceVersion}` } };
      },
    });
    fifo.add(v("ns/new", "1"));
    await fifo.replace([v("ns/listed", "2")], "2");
    fifo.delete(v("ns/observed", "3"));
    fifo.delete(new DeletedFinalStateUnknown("ns/gone", v("ns/gone", "0")));
    expect(calls).toBe(3);
    expect(await drain(fifo)).toEqual(["Added:new@t1", "ReplacedAll[listed@t2]@2", "Deleted:observed@t3", "Deleted:tombstone(ns/gone)"]);
  });

  test("a replace carries the keys its caller gave, unless a transform may have changed the objects they key", async () => {
    const keysOf = async (fifo: RealFifo) => {
      let keys: readonly string[] | undefined;
      await fifo.pop((delta) => void (keys = delta.type === "ReplacedAll" ? delta.keys : undefined));
      return keys;
    };
    const plain = new RealFifo();
    await plain.replace([v("ns/a", "1"), v("ns/b", "2")], "2", ["ns/a", "ns/b"]);
    await plain.replace([v("ns/a", "1")], "3");
    expect(await keysOf(plain)).toEqual(["ns/a", "ns/b"]);
    expect(await keysOf(plain)).toBeUndefined();
    const transforming = new RealFifo({ transform: (o) => o });
    await transforming.replace([v("ns/a", "1")], "2", ["ns/a"]);
    expect(await keysOf(transforming)).toBeUndefined();
  });

  test("pop waits for an entry, and resolves false when its signal aborts", async () => {
    const fifo = new RealFifo();
    const seen: string[] = [];
    const popping = fifo.pop((delta) => void seen.push(show(delta)));
    await Promise.resolve();
    expect(seen).toEqual([]);
    fifo.add(v("ns/a", "1"));
    expect(await popping).toBe(true);
    expect(seen).toEqual(["Added:a@1"]);

    const controller = new AbortController();
    const waiting = fifo.pop(() => {
      throw new Error("must not process");
    }, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });

  test("a big list is transformed in time slices: a timer due meanwhile fires before it is queued", async () => {
    let transformed = 0;
    // A due timer may wait about two slices (10 ms) before Bun runs it, and a warm JIT copies
    // 100,000 objects in less: each thousandth object costs 0.5 ms more, so the list takes at
    // least 50 ms whatever the compiler does.
    const slowEveryThousandth = (o: ReturnType<typeof v>) => {
      if (transformed % 1000 === 0) for (const start = performance.now(); performance.now() - start < 0.5; );
      return o;
    };
    const fifo = new RealFifo({ transform: (o) => (slowEveryThousandth(o), transformed++, { ...o, metadata: { ...o.metadata, labels: { copied: "yes" } } }) });
    const list = Array.from({ length: 100_000 }, (_, i) => v(`ns/o-${i}`, "1"));
    let transformedWhenTimerFired: number | undefined;
    setTimeout(() => (transformedWhenTimerFired = transformed), 0);
    // Due before the list starts (a 0 ms timer waits at least 1 ms), so any yield of the loop lets it run.
    const armed = performance.now();
    while (performance.now() - armed < 3);
    await fifo.replace(list, "1");
    expect(transformedWhenTimerFired).toBeLessThan(list.length);
    expect(fifo.length).toBe(1);
  });

  test("metrics: the queue's length after every push and pop, and the seconds each entry took to process", async () => {
    const lengths: number[] = [];
    const latencies: number[] = [];
    const clock = new FakeClock();
    const fifo = new RealFifo({
      clock,
      metrics: { queuedItems: { set: (n) => void lengths.push(n) }, processingLatency: { observe: (s) => void latencies.push(s) } },
    });
    fifo.add(v("ns/a", "1"));
    await fifo.replace([v("ns/a", "1")], "1");
    await fifo.pop(() => clock.advance(250));
    await fifo.pop(() => {});
    expect(lengths).toEqual([1, 2, 1, 0]);
    expect(latencies).toEqual([0.25, 0]);
  });
});
