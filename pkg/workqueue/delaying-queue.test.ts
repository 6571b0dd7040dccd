import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { DelayingQueue } from "./delaying-queue.ts";

/** Hands out everything queued right now. */
async function takeQueued(queue: DelayingQueue): Promise<string[]> {
  const items: string[] = [];
  while (queue.len() > 0) {
    const { item, shutdown } = await queue.get();
    if (!shutdown) items.push(item);
  }
  return items;
}

describe("DelayingQueue", () => {
  test("addAfter with a delay ≤ 0 adds at once", () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter("a", 0);
    queue.addAfter("b", -5);
    expect(queue.len()).toBe(2);
    expect(clock.waiters).toBe(0);
  });

  test("an item delayed twice keeps the earlier ready time", async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    queue.addAfter("later-then-sooner", 100);
    queue.addAfter("later-then-sooner", 50);
    queue.addAfter("sooner-then-later", 50);
    queue.addAfter("sooner-then-later", 100);
    await clock.advance(49);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(await takeQueued(queue)).toEqual(["later-then-sooner", "sooner-then-later"]);
    await clock.advance(1000);
    expect(queue.len()).toBe(0);
  });

  test("delayed items are added when their delays have passed, earliest first", async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue({ clock });
    const worker = queue.get();
    queue.addAfter("a", 30);
    queue.addAfter("b", 10);
    queue.addAfter("c", 20);
    await clock.advance(9);
    expect(Bun.peek.status(worker)).toBe("pending");
    await clock.advance(1);
    expect(await worker).toEqual({ item: "b", shutdown: false });
    await clock.advance(10);
    expect(await takeQueued(queue)).toEqual(["c"]);
    await clock.advance(10);
    expect(await takeQueued(queue)).toEqual(["a"]);

    queue.addAfter("d", 10);
    queue.shutDown();
    expect(clock.waiters).toBe(0);
  });
});
