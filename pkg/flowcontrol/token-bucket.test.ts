import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { TokenBucket } from "./token-bucket.ts";

/** Starts `take()` for each name and records the order in which they get their token. */
function takeAll(bucket: TokenBucket, names: string[], signals: Record<string, AbortSignal> = {}) {
  const served: string[] = [];
  const rejected: string[] = [];
  for (const name of names) {
    bucket.take(signals[name]).then(
      () => served.push(name),
      () => rejected.push(name),
    );
  }
  return { served, rejected };
}

describe("TokenBucket", () => {
  test("starts full with burst tokens, then earns qps tokens per second", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 3, clock);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, true, false]);
    await clock.advance(99);
    expect(bucket.tryTake()).toBe(false);
    await clock.advance(1);
    expect(bucket.tryTake()).toBe(true);
    await clock.advance(10_000);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, true, false]);
  });

  test("reserve takes tokens ahead and returns how long until each is due", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 2, clock);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 100, 200]);
    expect(bucket.tryTake()).toBe(false);
    await clock.advance(150);
    expect(bucket.reserve()).toBe(150);
  });

  test("take serves concurrent callers first-come first-served, one per interval", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 1, clock);
    const { served } = takeAll(bucket, ["a", "b", "c", "d"]);
    await clock.advance(0);
    expect(served).toEqual(["a"]);
    await clock.advance(100);
    expect(served).toEqual(["a", "b"]);
    await clock.advance(199);
    expect(served).toEqual(["a", "b", "c"]);
    await clock.advance(1);
    expect(served).toEqual(["a", "b", "c", "d"]);
  });

  test("a wall clock stepped back neither stalls queued requests nor withholds tokens", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 1, clock);
    const { served } = takeAll(bucket, ["a", "b", "c"]);
    await clock.advance(0);
    clock.stepWall(-3_600_000);
    await clock.advance(200);
    expect(served).toEqual(["a", "b", "c"]);
    clock.stepWall(3_600_000);
    // Nor does a step forward hand out a burst of tokens.
    expect([bucket.tryTake(), bucket.tryTake()]).toEqual([false, false]);
  });

  test("a waiter that aborts gives its token back, moving later waiters up", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 1, clock);
    const abortB = new AbortController();
    const { served, rejected } = takeAll(bucket, ["a", "b", "c"], { b: abortB.signal });
    await clock.advance(50);
    abortB.abort(new Error("gone"));
    await clock.advance(0);
    expect(rejected).toEqual(["b"]);
    // c inherits b's slot at 100 ms, and the next reservation comes right after it.
    await clock.advance(50);
    expect(served).toEqual(["a", "c"]);
    expect(bucket.reserve()).toBe(100);
    expect(clock.waiters).toBe(0);
  });

  test("a waiter behind a reserve() caller cannot return its token, as in x/time/rate", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 1, clock);
    const abortA = new AbortController();
    expect(bucket.tryTake()).toBe(true);
    const { served } = takeAll(bucket, ["a", "b"], { a: abortA.signal });
    expect(bucket.reserve()).toBe(300);
    abortA.abort();
    await clock.advance(199);
    expect(served).toEqual([]);
    await clock.advance(1);
    expect(served).toEqual(["b"]);
  });

  test("an already aborted signal rejects without spending a token", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 1, clock);
    const reason = new Error("cancelled");
    await expect(bucket.take(AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(bucket.tryTake()).toBe(true);
  });

  test("qps ≤ 0 is unlimited", async () => {
    const bucket = new TokenBucket(0, 0, new FakeClock());
    for (let i = 0; i < 100; i++) expect(bucket.tryTake()).toBe(true);
    expect(bucket.reserve()).toBe(0);
    await bucket.take();
  });
});
