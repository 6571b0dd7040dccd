import { describe, expect, test } from "bun:test";
import { eventually } from "./eventually.ts";

describe("eventually", () => {
  test("resolves with the first result that is not false", async () => {
    let calls = 0;
    const result = await eventually(() => (++calls >= 3 ? `after ${calls}` : false), { intervalMs: 1 });
    expect(result).toBe("after 3");
  });

  test("a thrown error (a failed assertion) means not yet", async () => {
    let calls = 0;
    await eventually(
      async () => {
        calls++;
        expect(calls).toBe(3);
      },
      { intervalMs: 1 },
    );
    expect(calls).toBe(3);
  });

  test("times out naming what it waited for and the last failure, which it keeps as the cause", async () => {
    const failure = new Error("expected 3, got 2");
    const error = await eventually(
      () => {
        throw failure;
      },
      { timeoutMs: 20, intervalMs: 5, message: "three copies" },
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("timed out after 20 ms waiting for three copies; last failure: expected 3, got 2");
    expect((error as Error).cause).toBe(failure);
    await expect(eventually(() => false, { timeoutMs: 10, intervalMs: 5 })).rejects.toThrow("timed out after 10 ms waiting for the condition");
  });
});
