import { describe, expect, test } from "bun:test";
import { assignSlots } from "./assignment.ts";
import { fnv1a64 } from "./fnv1a64.ts";
import { type HashRange, hashSpaceEnd, intersectRanges, normalizeRanges, rangesContain, shardSelector, subtractRanges } from "./hash-range.ts";
import { namespaceSlot, rangesOfSlots, slotCount, slotOfHash } from "./slots.ts";

const r = (start: bigint, end: bigint): HashRange => ({ start, end });

describe("fnv1a64", () => {
  test("matches Go's hash/fnv New64a, which the API server's shard filter uses", () => {
    // Values printed by Go's hash/fnv.
    expect(fnv1a64("").toString(16)).toBe("cbf29ce484222325");
    expect(fnv1a64("default").toString(16)).toBe("ebada5168620c5fe");
    expect(fnv1a64("kube-system").toString(16)).toBe("df65c7bc1d82b35e");
    expect(fnv1a64("bench-7").toString(16)).toBe("652f48d9fd6a10f1");
    expect(fnv1a64("名前").toString(16)).toBe("e89b3249d14aaeb0");
  });
});

describe("hash ranges", () => {
  test("normalize sorts, merges touching ranges and drops empty ones", () => {
    expect(normalizeRanges([r(10n, 20n), r(0n, 5n), r(5n, 10n), r(30n, 30n)])).toEqual([r(0n, 20n)]);
  });

  test("contain, subtract and intersect", () => {
    const ranges = normalizeRanges([r(0n, 10n), r(20n, 30n)]);
    expect([0n, 9n, 10n, 19n, 20n, 29n, 30n].map((h) => rangesContain(ranges, h))).toEqual([true, true, false, false, true, true, false]);
    expect(subtractRanges(ranges, [r(5n, 25n)])).toEqual([r(0n, 5n), r(25n, 30n)]);
    expect(intersectRanges(ranges, [r(5n, 25n)])).toEqual([r(5n, 10n), r(20n, 25n)]);
  });

  test("the selector is written as the API server parses it", () => {
    expect(shardSelector("object.metadata.namespace", [r(0n, 1n << 62n), r(3n << 62n, hashSpaceEnd)])).toBe(
      "shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000') || " +
        "shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')",
    );
  });
});

describe("slots", () => {
  test("a namespace's slot is the top byte of its hash, and its slot range contains the hash", () => {
    expect(namespaceSlot("default")).toBe(0xeb);
    expect(rangesContain(rangesOfSlots([namespaceSlot("default")]), fnv1a64("default"))).toBe(true);
    expect(slotOfHash(hashSpaceEnd - 1n)).toBe(slotCount - 1);
  });

  test("all slots together are the whole hash space as one range", () => {
    expect(rangesOfSlots(Array.from({ length: slotCount }, (_, i) => i))).toEqual([r(0n, hashSpaceEnd)]);
  });
});

describe("rendezvous assignment", () => {
  const members = (n: number) => Array.from({ length: n }, (_, i) => `kube-loom-${i}-${(i * 7919).toString(16)}`);
  const share = (owners: string[], member: string) => owners.filter((o) => o === member).length;

  test("every member gets close to 1/N of the slots", () => {
    for (const n of [2, 3, 5]) {
      const owners = assignSlots(members(n));
      for (const member of members(n)) expect(Math.abs(share(owners, member) - slotCount / n)).toBeLessThan(slotCount / n / 4);
    }
  });

  test("a join moves only the slots the newcomer takes, about 1/N; a leave moves only the leaver's", () => {
    const before = assignSlots(members(3));
    const after = assignSlots(members(4));
    const moved = before.filter((owner, slot) => owner !== after[slot]);
    expect(moved.length).toBeLessThanOrEqual(Math.ceil((1.2 * slotCount) / 4));
    after.forEach((owner, slot) => {
      if (owner !== before[slot]) expect(owner).toBe(members(4)[3]!);
    });
    const back = assignSlots(members(3));
    expect(back).toEqual(before);
  });

  test("does not depend on the order the members are listed in", () => {
    expect(assignSlots(members(4).reverse())).toEqual(assignSlots(members(4)));
  });
});
