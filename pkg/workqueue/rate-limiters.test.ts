import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  defaultControllerRateLimiter,
} from "./rate-limiters.ts";

const delays = (limiter: RateLimiter, item: string, count: number) =>
  Array.from({ length: count }, () => limiter.when(item));

describe("rate limiters", () => {
  test("exponential backoff doubles per failure of each item and stops at the cap", () => {
    const limiter = new ItemExponentialFailureRateLimiter(5, 1000);
    expect(delays(limiter, "a", 10)).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    expect(limiter.when("b")).toBe(5);
    expect(limiter.numRequeues("a")).toBe(10);
    // Far past where 2^n overflows a double it still answers the cap.
    expect(delays(limiter, "a", 2000).at(-1)).toBe(1000);
    expect(new ItemExponentialFailureRateLimiter().when("c")).toBe(5);
  });

  test("the bucket limiter lets a burst through, then spaces items at 1/qps", () => {
    const limiter = new BucketRateLimiter(10, 100, new FakeClock());
    const burst = Array.from({ length: 100 }, (_, i) => limiter.when(`item-${i}`));
    expect(burst.every((delay) => delay === 0)).toBe(true);
    expect([limiter.when("x"), limiter.when("y"), limiter.when("x")]).toEqual([100, 200, 300]);
    expect(limiter.numRequeues("x")).toBe(0);
  });

  test("max-of answers the longest delay and asks, forgets and counts across all limiters", () => {
    const clock = new FakeClock();
    const exponential = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    const bucket = new BucketRateLimiter(1, 2, clock);
    const limiter = new MaxOfRateLimiter(exponential, bucket);
    expect(delays(limiter, "a", 4)).toEqual([5, 10, 1000, 2000]);
    expect(limiter.numRequeues("a")).toBe(4);
    limiter.forget("a");
    expect(exponential.numRequeues("a")).toBe(0);

    const controller = defaultControllerRateLimiter(clock);
    expect(delays(controller, "b", 3)).toEqual([5, 10, 20]);
    // 97 more items drain the burst of 100; the next is then held 1/10 s by the bucket.
    for (let i = 0; i < 97; i++) controller.when(`item-${i}`);
    expect(controller.when("c")).toBe(100);
  });
});
