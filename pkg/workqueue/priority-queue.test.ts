// Priorities in the rate-limiting workqueue: order, dedup across priorities, per-key exclusion, delayed and
// retried keys, the low-priority share, shutdown, and the unchanged metrics.
import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { WorkqueueMetricsProvider } from "./metrics.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";
import type { Priority } from "./priority.ts";

function newQueue(options: { normalPerLow?: number; metricsProvider?: WorkqueueMetricsProvider } = {}) {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue(new ItemExponentialFailureRateLimiter(10, 1000), { name: "q", clock, ...options });
  return { clock, queue };
}

/** Hands out and finishes everything queued right now, in order. */
async function drain(queue: RateLimitingQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const { item, shutdown } = await queue.get();
    if (shutdown) break;
    keys.push(item);
    queue.done(item);
  }
  return keys;
}

const low = { priority: "low" } as const;
const normal = { priority: "normal" } as const;

describe("RateLimitingQueue priorities", () => {
  test("keys added at normal priority (the default) are handed out before low ones", async () => {
    const { queue } = newQueue();
    queue.add("initial-1", low);
    queue.add("initial-2", low);
    queue.add("live-1");
    queue.add("live-2", normal);
    expect(await drain(queue)).toEqual(["live-1", "live-2", "initial-1", "initial-2"]);
  });

  test("a queued low key added at normal moves up; a queued normal key added at low stays put", async () => {
    const { queue } = newQueue();
    queue.add("a", low);
    queue.add("b", low);
    queue.add("c");
    queue.add("b");
    queue.add("c", low);
    expect(queue.len()).toBe(3);
    expect(await drain(queue)).toEqual(["c", "b", "a"]);
  });

  test("a key being processed is not handed out again; re-added meanwhile, it is queued after done at the higher priority", async () => {
    const { queue } = newQueue();
    queue.add("a", low);
    queue.add("b", low);
    expect((await queue.get()).item).toBe("a");
    queue.add("a", low);
    queue.add("a");
    queue.add("a", low);
    expect(queue.len()).toBe(1);
    expect((await queue.get()).item).toBe("b");
    expect(Bun.peek.status(queue.get())).toBe("pending");
    queue.add("c", low);
    queue.done("a");
    // The blocked get took c; a now waits at normal priority.
    queue.add("d", low);
    expect(await drain(queue)).toEqual(["a", "d"]);
  });

  test("a delayed key is added at its priority when due; without one it is normal", async () => {
    const { clock, queue } = newQueue();
    queue.add("waiting-low", low);
    queue.addAfter("later-low", 10, low);
    queue.addAfter("later", 10);
    await clock.advance(10);
    expect(await drain(queue)).toEqual(["later", "waiting-low", "later-low"]);

    // Delayed twice, it comes back once, at the higher priority.
    queue.add("other", low);
    queue.addAfter("twice", 10, low);
    queue.addAfter("twice", 20, normal);
    await clock.advance(10);
    expect(await drain(queue)).toEqual(["twice", "other"]);
  });

  test("a retry or requeue of a key being processed keeps the priority it was handed out at, unless given one", async () => {
    const { clock, queue } = newQueue();
    queue.add("initial", low);
    expect((await queue.get()).item).toBe("initial");
    queue.addRateLimited("initial");
    queue.done("initial");
    queue.add("live");
    expect((await queue.get()).item).toBe("live");
    queue.addAfter("live", 10);
    queue.done("live");
    queue.add("queued-low", low);
    await clock.advance(10);
    // Both came back: the live key ahead, the initial-list one behind the low key queued before it.
    expect(await drain(queue)).toEqual(["live", "queued-low", "initial"]);

    queue.add("promoted", low);
    expect((await queue.get()).item).toBe("promoted");
    queue.addRateLimited("promoted", normal);
    queue.done("promoted");
    queue.add("behind", low);
    await clock.advance(1000);
    expect(await drain(queue)).toEqual(["promoted", "behind"]);
  });

  test("low keys are not starved by live keys that keep requeueing themselves (controller-runtime#3496)", async () => {
    const { clock, queue } = newQueue({ normalPerLow: 9 });
    for (let i = 1; i <= 3; i++) queue.add(`initial-${i}`, low);
    for (let i = 1; i <= 10; i++) queue.add(`live-${i}`);
    // One worker, one hand-out per millisecond; every live key asks to be reconciled again 5 ms later, so normal
    // keys are always waiting: with strict priorities the initial keys would never come out.
    const handedOut: string[] = [];
    for (let turn = 0; turn < 40; turn++) {
      const { item } = await queue.get();
      if (item === undefined) throw new Error("queue shut down");
      handedOut.push(item);
      if (item.startsWith("live-")) queue.addAfter(item, 5);
      queue.done(item);
      await clock.advance(1);
    }
    expect(handedOut.filter((key) => key.startsWith("live-")).length).toBe(37);
    expect([1, 2, 3].map((i) => handedOut.indexOf(`initial-${i}`))).toEqual([9, 19, 29]);
  });

  test("100,000 initial keys: a live key is handed out next, and every key once", async () => {
    const { queue } = newQueue();
    for (let i = 0; i < 100_000; i++) queue.add(`initial-${i}`, low);
    queue.add("initial-5", low);
    expect((await queue.get()).item).toBe("initial-0");
    queue.done("initial-0");
    queue.add("initial-77777");
    queue.add("live");
    const order = await drain(queue);
    expect(order.slice(0, 2)).toEqual(["initial-77777", "live"]);
    expect(order).toHaveLength(100_000);
    expect(new Set(order).size).toBe(100_000);
  });

  test("after shutDown queued keys of both priorities still drain in order; delayed ones are dropped", async () => {
    const { clock, queue } = newQueue();
    queue.add("initial", low);
    queue.add("live");
    queue.addAfter("later", 10, low);
    queue.shutDown();
    queue.add("too-late");
    queue.addAfter("too-late", 0, low);
    await clock.advance(10);
    expect(await drain(queue)).toEqual(["live", "initial"]);
    expect(await queue.get()).toEqual({ item: undefined, shutdown: true });
  });

  test("a priority other than normal or low is refused, naming it", () => {
    const { queue } = newQueue();
    expect(() => queue.add("a", { priority: "high" as Priority })).toThrow('workqueue priority "high" is not one of "normal" or "low"');
    expect(() => queue.addAfter("a", 10, { priority: "urgent" as Priority })).toThrow('workqueue priority "urgent"');
    expect(queue.len()).toBe(0);
  });

  test("workqueue metrics do not see priorities: moving a key up is no new add and no new depth", async () => {
    const values = new Map<string, number>();
    const gauge = (name: string) => ({
      inc: () => values.set(name, (values.get(name) ?? 0) + 1),
      dec: () => values.set(name, (values.get(name) ?? 0) - 1),
      set: (value: number) => values.set(name, value),
      observe: () => undefined,
    });
    const provider: WorkqueueMetricsProvider = {
      newDepthMetric: () => gauge("depth"),
      newAddsMetric: () => gauge("adds"),
      newLatencyMetric: () => gauge("latency"),
      newWorkDurationMetric: () => gauge("duration"),
      newUnfinishedWorkSecondsMetric: () => gauge("unfinished"),
      newLongestRunningProcessorSecondsMetric: () => gauge("longest"),
      newRetriesMetric: () => gauge("retries"),
    };
    const { queue } = newQueue({ metricsProvider: provider });
    queue.add("a", low);
    queue.add("b", low);
    queue.add("a");
    queue.add("b", low);
    expect([values.get("depth"), values.get("adds")]).toEqual([2, 2]);
    await drain(queue);
    expect(values.get("depth")).toBe(0);
  });
});
