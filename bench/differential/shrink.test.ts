import { expect, test } from "bun:test";
import { agrees, diffOutcomes } from "./outcome-diff.ts";
import { shrinkCase } from "./shrink.ts";

const dropOne = (items: number[]) => items.map((_, index) => items.filter((__, i) => i !== index));

test("shrinking keeps removing elements while the failure persists, down to the ones that cause it", async () => {
  const fails = async (items: number[]) => items.includes(3) && items.includes(7);
  const result = await shrinkCase([1, 2, 3, 4, 5, 6, 7, 8], dropOne, fails, 100);
  expect(result).toEqual({ minimal: [3, 7], runs: expect.any(Number), complete: true });
});

test("a variant that passed is not run again", async () => {
  const runs: string[] = [];
  const fails = async (items: number[]) => {
    runs.push(items.join());
    return items.includes(1);
  };
  await shrinkCase([1, 2, 3], dropOne, fails, 100);
  expect(runs.length).toBe(new Set(runs).size);
});

test("shrinking stops at its run budget and says so", async () => {
  const result = await shrinkCase([1, 2, 3, 4], dropOne, async () => false, 2);
  expect(result).toEqual({ minimal: [1, 2, 3, 4], runs: 2, complete: false });
});

test("outcomes are compared as multisets of lines", () => {
  expect(agrees(diffOutcomes(["b", "a", "a"], ["a", "b", "a"]))).toBe(true);
  expect(diffOutcomes(["a", "a", "c"], ["a", "b"])).toEqual({ onlyLeft: ["a", "c"], onlyRight: ["b"] });
});
