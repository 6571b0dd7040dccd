import { describe, expect, test } from "bun:test";
import { GarbageHint } from "./garbage-hint.ts";

/** A hint, and every collection it asked for: true when waited for. */
function recorded(): { hint: GarbageHint; asked: boolean[] } {
  const asked: boolean[] = [];
  return { hint: new GarbageHint((synchronously) => void asked.push(synchronously)), asked };
}

describe("GarbageHint", () => {
  test("a first list asks for a collection every 500 objects, without waiting for it", () => {
    const { hint, asked } = recorded();
    for (let i = 0; i < 1200; i++) hint.objectDecoded();
    expect(asked).toEqual([false, false]);
  });

  test("a relist waits for a full collection each time a tenth of the cache came in again, and none for a small cache", () => {
    const big = recorded();
    for (let i = 0; i < 50_000; i++) big.hint.objectRelisted(50_000);
    expect(big.asked).toEqual(Array.from({ length: 10 }, () => true));
    const small = recorded();
    for (let i = 0; i < 1500; i++) small.hint.objectRelisted(1500);
    expect(small.asked).toEqual([]);
  });
});
