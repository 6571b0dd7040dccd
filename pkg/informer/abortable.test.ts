import { describe, expect, test } from "bun:test";
import { untilAborted } from "./abortable.ts";

/** Yields `count` fresh objects, then waits forever, like a quiet watch; records a weak reference to each. */
function quietAfter(count: number, refs: WeakRef<object>[]): AsyncIterable<object> {
  return {
    async *[Symbol.asyncIterator]() {
      for (let i = 0; i < count; i++) {
        const value = { i, payload: new Array(64).fill(i) };
        refs.push(new WeakRef(value));
        yield value;
      }
      await new Promise<never>(() => {});
    },
  };
}

describe("untilAborted", () => {
  test("ends at once when the signal aborts, even while the source waits", async () => {
    const controller = new AbortController();
    const iterator = untilAborted(quietAfter(1, []), controller.signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const waiting = iterator.next();
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });

  test("keeps nothing it has yielded while the iteration goes on", async () => {
    const refs: WeakRef<object>[] = [];
    const controller = new AbortController();
    const iterator = untilAborted(quietAfter(200, refs), controller.signal)[Symbol.asyncIterator]();
    for (let i = 0; i < 200; i++) await iterator.next();
    const waiting = iterator.next();
    // A weak target stays alive until the job that created it ends: collect on later turns.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      Bun.gc(true);
    }
    // Only the last few can still be referenced from the generator's own frame.
    expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeLessThan(5);
    controller.abort();
    await waiting;
  });
});
