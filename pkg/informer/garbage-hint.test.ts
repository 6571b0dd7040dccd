import { describe, expect, test } from "bun:test";
import { GarbageHint } from "./garbage-hint.ts";

/** A hint reading `bytesRead`, and every collection it asked for: true when waited for. */
function recorded(bytesRead = () => 0): { hint: GarbageHint; asked: boolean[] } {
  const asked: boolean[] = [];
  return { hint: new GarbageHint((synchronously) => void asked.push(synchronously), bytesRead, { atBytes: 0 }), asked };
}

describe("GarbageHint", () => {
  test("a first list asks for a collection every 2 MiB of body read, without waiting for it, however many objects that is", () => {
    let bytes = 0;
    const pods = recorded(() => bytes);
    for (let i = 0; i < 1200; i++) {
      bytes += 4096;
      pods.hint.objectDecoded();
    }
    expect(pods.asked).toEqual([false, false]);
    bytes = 0;
    const metadata = recorded(() => bytes);
    for (let i = 0; i < 10_000; i++) {
      bytes += 250;
      metadata.hint.objectDecoded();
    }
    expect(metadata.asked).toEqual([false]);
  });

  test("informers listing at once share the requests of their first lists", () => {
    let bytes = 0;
    const asked: boolean[] = [];
    const shared = { atBytes: 0 };
    const hints = [0, 1].map(() => new GarbageHint((synchronously) => void asked.push(synchronously), () => bytes, shared));
    for (let i = 0; i < 1200; i++) {
      bytes += 4096;
      for (const hint of hints) hint.objectDecoded();
    }
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

  test("a big relist waits for a full collection once it has come in, and again once the cache has taken it; a small one for neither", () => {
    const big = recorded();
    big.hint.relistStepDone(50_000);
    big.hint.relistStepDone(50_000);
    expect(big.asked).toEqual([true, true]);
    const small = recorded();
    small.hint.relistStepDone(1500);
    small.hint.relistStepDone(1500);
    expect(small.asked).toEqual([]);
  });
});
