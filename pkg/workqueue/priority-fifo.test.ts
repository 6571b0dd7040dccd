import { describe, expect, test } from "bun:test";
import { PriorityFifo } from "./priority-fifo.ts";

function drain(fifo: PriorityFifo<string>): string[] {
  const keys: string[] = [];
  for (let key = fifo.shift(); key !== undefined; key = fifo.shift()) keys.push(key);
  return keys;
}

describe("PriorityFifo", () => {
  test("normal keys first, each priority first-in first-out", () => {
    const fifo = new PriorityFifo<string>();
    fifo.put("low-1", "low");
    fifo.put("normal-1", "normal");
    fifo.put("low-2", "low");
    fifo.put("normal-2", "normal");
    expect(fifo.size).toBe(4);
    expect(drain(fifo)).toEqual(["normal-1", "normal-2", "low-1", "low-2"]);
    expect(fifo.size).toBe(0);
  });

  test("a key moved up goes to the end of the normal line; a lower or equal put leaves it where it is", () => {
    const fifo = new PriorityFifo<string>();
    fifo.put("a", "low");
    fifo.put("b", "low");
    fifo.put("n", "normal");
    fifo.put("b", "normal");
    fifo.put("n", "low");
    fifo.put("n", "normal");
    expect(fifo.size).toBe(3);
    expect(drain(fifo)).toEqual(["n", "b", "a"]);
  });

  test("a key moved up, handed out and queued low again is served once, at its new place", () => {
    const fifo = new PriorityFifo<string>();
    fifo.put("a", "low");
    fifo.put("b", "low");
    fifo.put("a", "normal");
    expect(fifo.shift()).toBe("a");
    fifo.put("a", "low");
    expect(drain(fifo)).toEqual(["b", "a"]);

    // The only low key moved up: its line is left with nothing live in it.
    fifo.put("c", "low");
    fifo.put("c", "normal");
    fifo.put("d", "low");
    expect(drain(fifo)).toEqual(["c", "d"]);
  });

  test("while low keys wait, the oldest is served after every normalPerLow normal keys", () => {
    const fifo = new PriorityFifo<string>(3);
    for (let i = 1; i <= 2; i++) fifo.put(`low-${i}`, "low");
    for (let i = 1; i <= 8; i++) fifo.put(`n-${i}`, "normal");
    expect(drain(fifo)).toEqual(["n-1", "n-2", "n-3", "low-1", "n-4", "n-5", "n-6", "low-2", "n-7", "n-8"]);
  });

  test("normal keys served while no low key waited do not count toward the low key's turn", () => {
    const fifo = new PriorityFifo<string>(2);
    fifo.put("n-1", "normal");
    fifo.put("n-2", "normal");
    fifo.put("n-3", "normal");
    expect(fifo.shift()).toBe("n-1");
    expect(fifo.shift()).toBe("n-2");
    fifo.put("low", "low");
    fifo.put("n-4", "normal");
    fifo.put("n-5", "normal");
    expect(drain(fifo)).toEqual(["n-3", "n-4", "low", "n-5"]);
  });

  test("normalPerLow must be a positive integer", () => {
    expect(() => new PriorityFifo(0)).toThrow("workqueue normalPerLow 0 is not a positive integer");
    expect(() => new PriorityFifo(1.5)).toThrow("workqueue normalPerLow 1.5 is not a positive integer");
  });
});
