import { describe, expect, test } from "bun:test";
import { slowStartBatch } from "./slow-start.ts";

describe("slowStartBatch", () => {
  test("runs batches of 1, 2, 4, … concurrently within a batch", async () => {
    let running = 0;
    const batches: number[] = [];
    let current = 0;
    const result = await slowStartBatch(10, 1, async () => {
      running++;
      current = Math.max(current, running);
      await Promise.resolve();
      running--;
      if (running === 0) {
        batches.push(current);
        current = 0;
      }
    });
    expect(result).toEqual({ successes: 10 });
    expect(batches).toEqual([1, 2, 4, 3]);
  });

  test("stops after the first batch with a failure and reports it", async () => {
    let calls = 0;
    const failure = new Error("quota exceeded");
    const result = await slowStartBatch(500, 1, async () => {
      calls++;
      if (calls >= 3) throw failure;
    });
    // Batch 1 (1 call) succeeds, batch 2 (2 calls) has one failure, nothing after.
    expect(calls).toBe(3);
    expect(result.successes).toBe(2);
    expect(result.error).toBe(failure);
  });

  test("a function that throws synchronously counts as a failure", async () => {
    const result = await slowStartBatch(4, 1, () => {
      throw new Error("boom");
    });
    expect(result.successes).toBe(0);
    expect(result.error).toBeInstanceOf(Error);
  });

  test("nothing to do makes no calls", async () => {
    let calls = 0;
    expect(await slowStartBatch(0, 1, async () => void calls++)).toEqual({ successes: 0 });
    expect(calls).toBe(0);
  });
});
