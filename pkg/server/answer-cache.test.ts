import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { AnswerCache, type Outcome } from "./answer-cache.ts";

function cacheWith(ttl: (outcome: Outcome<string>) => number, maxEntries?: number) {
  const clock = new FakeClock();
  const cache = new AnswerCache<string>({ ttlMs: ttl, clock, ...(maxEntries ? { maxEntries } : {}) });
  let fetches = 0;
  const answer = (value: string) => () => {
    fetches++;
    return Promise.resolve(value);
  };
  return { cache, answer, fetches: () => fetches, advance: (ms: number) => clock.advanceWithoutTimers(ms) };
}

describe("AnswerCache", () => {
  test("an answer is reused until its TTL has passed", async () => {
    const { cache, answer, fetches, advance } = cacheWith(() => 10_000);
    expect(await cache.get("k", answer("a"))).toBe("a");
    advance(9_999);
    expect(await cache.get("k", answer("b"))).toBe("a");
    advance(1);
    expect(await cache.get("k", answer("c"))).toBe("c");
    expect(fetches()).toBe(2);
  });

  test("concurrent requests for one key share one fetch", async () => {
    const { cache, answer, fetches } = cacheWith(() => 0);
    const results = await Promise.all([cache.get("k", answer("a")), cache.get("k", answer("b"))]);
    expect(results).toEqual(["a", "a"]);
    expect(fetches()).toBe(1);
  });

  test("a failure is remembered for its own TTL, then retried", async () => {
    const { cache, answer, advance } = cacheWith((outcome) => (outcome.ok ? 10_000 : 1_000));
    const down = () => Promise.reject(new Error("connection refused"));
    await expect(cache.get("k", down)).rejects.toThrow("connection refused");
    await expect(cache.get("k", answer("a"))).rejects.toThrow("connection refused");
    advance(1_000);
    expect(await cache.get("k", answer("a"))).toBe("a");
  });

  test("beyond maxEntries the oldest entries go", async () => {
    const { cache, answer, fetches } = cacheWith(() => 10_000, 2);
    for (const key of ["a", "b", "c"]) await cache.get(key, answer(key));
    await cache.get("c", answer("again"));
    await cache.get("a", answer("again"));
    expect(fetches()).toBe(4);
  });
});
