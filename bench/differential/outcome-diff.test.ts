import { expect, test } from "bun:test";
import { diffOutcomes, sameSplit } from "./outcome-diff.ts";

const kcm = ["a owners=[o2, o3]", "b"];
const loom = ["a owners=[o3]", "b"];

test("an upstream run that ends split the same way, on either side, is the same split", () => {
  const disagreement = diffOutcomes(kcm, loom);
  expect(sameSplit(disagreement, diffOutcomes(kcm, loom))).toBe(true);
  expect(sameSplit(disagreement, diffOutcomes(loom, kcm))).toBe(true);
});

test("an upstream run that disagrees elsewhere is not", () => {
  const disagreement = diffOutcomes(kcm, loom);
  expect(sameSplit(disagreement, diffOutcomes(kcm, ["a owners=[o2, o3]", "c"]))).toBe(false);
  expect(sameSplit(disagreement, diffOutcomes(kcm, ["a owners=[]", "b"]))).toBe(false);
});
