import { expect, test } from "bun:test";
import { AbsentOwnerCache } from "./absent-owner-cache.ts";

const owner = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name, uid: `uid-${name}` });

test("keeps the most recently used owners, up to its capacity", () => {
  const cache = new AbsentOwnerCache(2);
  cache.add(owner("a"));
  cache.add(owner("b"));
  expect(cache.has(owner("a"))).toBe(true);
  cache.add(owner("c"));
  expect(cache.has(owner("b"))).toBe(false);
  expect(cache.has(owner("a"))).toBe(true);
  expect(cache.has(owner("c"))).toBe(true);
  expect(cache.has({ ...owner("a"), namespace: "other" })).toBe(false);
});
