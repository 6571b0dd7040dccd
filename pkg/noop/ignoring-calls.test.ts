import { describe, expect, test } from "bun:test";
import { ignoringCalls } from "./ignoring-calls.ts";

interface Counts {
  add(amount: number): void;
  reset(): void;
}

interface Counters {
  counterFor(name: string): Counts;
}

describe("ignoringCalls", () => {
  test("every named method accepts any arguments and does nothing", () => {
    const counts: Counts = ignoringCalls(["add", "reset"]);
    expect(counts.add(3)).toBeUndefined();
    expect(counts.reset()).toBeUndefined();
    expect(Object.keys(counts)).toEqual(["add", "reset"]);
  });

  test("every named method returns the given result", () => {
    const counts: Counts = ignoringCalls(["add", "reset"]);
    const counters: Counters = ignoringCalls(["counterFor"], counts);
    expect(counters.counterFor("a")).toBe(counts);
  });
});
