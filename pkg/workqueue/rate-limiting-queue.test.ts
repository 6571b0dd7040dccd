import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiters.ts";
import { RateLimitingQueue } from "./rate-limiting-queue.ts";

function newQueue() {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue(new ItemExponentialFailureRateLimiter(10, 1000), { clock });
  return { clock, queue };
}

describe("RateLimitingQueue", () => {
  test("numRequeues counts rate-limited adds, each held back by the limiter's delay", async () => {
    const { clock, queue } = newQueue();
    queue.addRateLimited("a");
    expect(queue.numRequeues("a")).toBe(1);
    await clock.advance(9);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(await queue.get()).toEqual({ item: "a", shutdown: false });
    queue.addRateLimited("a");
    queue.done("a");
    expect(queue.numRequeues("a")).toBe(2);
    await clock.advance(19);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
  });

  test("forget resets only the failure count: the item stays processing and pending delays still fire", async () => {
    const { clock, queue } = newQueue();
    queue.add("a");
    expect((await queue.get()).item).toBe("a");
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    queue.forget("a");
    expect(queue.numRequeues("a")).toBe(0);
    await clock.advance(10);
    // Re-added while still processing, so it waits for done.
    expect(queue.len()).toBe(0);
    queue.done("a");
    expect(queue.len()).toBe(1);
    queue.addRateLimited("a");
    expect(queue.numRequeues("a")).toBe(1);
  });
});
