import { expect, test } from "bun:test";
import type { ObservedChange } from "./observed-change.ts";
import { RevisionOrder } from "./revision-order.ts";

function change(revision: number, receivedAt: number): ObservedChange {
  return { resource: "pods", type: "upsert", object: {}, revision, receivedAt, created: false, inferred: false };
}

test("changes go out by revision once held back, earlier revisions along with a due later one", () => {
  const delivered: number[] = [];
  const order = new RevisionOrder(1_000, (c) => delivered.push(c.revision));
  order.push(change(5, 0));
  order.push(change(3, 500));
  order.push(change(9, 900));
  order.flush(999);
  expect(delivered).toEqual([]);
  order.flush(1_000);
  expect(delivered).toEqual([3, 5]);
  order.push(change(4, 1_100));
  expect(order.lateChanges).toBe(1);
  order.flush(1_100, true);
  expect(delivered).toEqual([3, 5, 4, 9]);
});
