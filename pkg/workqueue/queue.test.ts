import { describe, expect, test } from "bun:test";
import { WorkQueue } from "./queue.ts";

const isPending = (promise: Promise<unknown>) => Bun.peek.status(promise) === "pending";

describe("WorkQueue", () => {
  test("an item added twice before it is handed out is processed once", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    queue.add("b");
    queue.add("a");
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toEqual({ item: "a", shutdown: false });
    expect(await queue.get()).toEqual({ item: "b", shutdown: false });
    expect(isPending(queue.get())).toBe(true);
  });

  test("a key is never handed to two workers at once", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    const first = await queue.get();
    queue.add("a");
    const second = queue.get();
    expect(isPending(second)).toBe(true);
    queue.add("b");
    expect(await second).toEqual({ item: "b", shutdown: false });
    expect(first.item).toBe("a");
  });

  test("an item added again while processing is queued once more after done", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    await queue.get();
    queue.add("a");
    queue.add("a");
    expect(queue.len()).toBe(0);
    queue.done("a");
    expect(queue.len()).toBe(1);
    expect(await queue.get()).toEqual({ item: "a", shutdown: false });
    queue.done("a");
    expect(queue.len()).toBe(0);
  });

  test("adds after shutDown are dropped", async () => {
    const queue = new WorkQueue();
    queue.shutDown();
    queue.add("a");
    expect(queue.len()).toBe(0);
    expect(queue.shuttingDown()).toBe(true);
    expect(await queue.get()).toEqual({ item: undefined, shutdown: true });
  });

  test("after shutDown queued items still drain through get, then get reports shutdown", async () => {
    const queue = new WorkQueue();
    const idleWorker = queue.get();
    queue.add("a");
    queue.add("b");
    queue.add("c");
    queue.shutDown();
    expect(await idleWorker).toEqual({ item: "a", shutdown: false });
    expect(await queue.get()).toEqual({ item: "b", shutdown: false });
    expect(await queue.get()).toEqual({ item: "c", shutdown: false });
    expect(await queue.get()).toEqual({ item: undefined, shutdown: true });

    // A worker blocked on an empty queue is released too.
    const empty = new WorkQueue();
    const blockedWorker = empty.get();
    empty.shutDown();
    expect(await blockedWorker).toEqual({ item: undefined, shutdown: true });
  });

  test("shutDownWithDrain waits until every handed-out item is done", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    queue.add("b");
    await queue.get();
    await queue.get();
    const drained = queue.shutDownWithDrain();
    queue.done("a");
    expect(isPending(drained)).toBe(true);
    queue.done("b");
    await drained;
    // With nothing being processed there is nothing to wait for.
    await new WorkQueue().shutDownWithDrain();
  });

  test("shutDown cuts a pending shutDownWithDrain short", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    await queue.get();
    const drained = queue.shutDownWithDrain();
    expect(isPending(drained)).toBe(true);
    queue.shutDown();
    await drained;
  });
});
