import { describe, expect, test } from "bun:test";
import { settle } from "../../test/support/eventually.ts";
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

  test("a slow call holds back the next batch, not the rest of its own, as kube-controller-manager's", async () => {
    let release = () => {};
    const slowAnswer = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const batch = slowStartBatch(7, 1, async () => {
      calls++;
      // The second call, in the batch of 2, is the one the API server answers late.
      if (calls === 2) await slowAnswer;
    });
    await settle();
    // Batch 1 and both calls of batch 2 were made; batch 3 waits for the late answer.
    expect(calls).toBe(3);
    release();
    expect(await batch).toEqual({ successes: 7 });
    expect(calls).toBe(7);
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
