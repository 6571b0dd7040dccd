import { describe, expect, test } from "bun:test";
import { planSlotOwners } from "./assignment.ts";
import { fnv1a64 } from "./fnv1a64.ts";
import { type HashRange, hashSpaceEnd, intersectRanges, normalizeRanges, rangesContain, shardSelector, subtractRanges } from "./hash-range.ts";
import { maxSlots, maxSlotWeight, slotWeights, sortHashes, splitHeavySlots } from "./slot-splits.ts";
import { formatSlotStart, parseSlotStart, rootSlotCount, rootSlots, slotIndexOf, slotsFromStarts } from "./slots.ts";

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
  test("the root slots are the hash's top byte and cover the hash space; a hash's slot is found among slots of any width", () => {
    const roots = rootSlots();
    expect(roots).toHaveLength(rootSlotCount);
    expect(normalizeRanges(roots)).toEqual([r(0n, hashSpaceEnd)]);
    expect(slotIndexOf(roots, fnv1a64("default"))).toBe(0xeb);
    expect(slotIndexOf(roots, hashSpaceEnd - 1n)).toBe(rootSlotCount - 1);
    const uneven = [r(0n, 10n), r(10n, 11n), r(11n, hashSpaceEnd)];
    expect([0n, 9n, 10n, 11n, hashSpaceEnd - 1n].map((hash) => slotIndexOf(uneven, hash))).toEqual([0, 0, 1, 2, 2]);
  });

  test("a slot's start is written as its leading hex digits and read back", () => {
    for (const start of [0n, 0xa3n << 56n, 0xa3c9n << 48n, 0x0000000000000001n, 0xffffffffffffffffn]) expect(parseSlotStart(formatSlotStart(start))).toBe(start);
    expect(formatSlotStart(0xa3n << 56n)).toBe("a3");
    expect(formatSlotStart(0n)).toBe("0");
    expect(parseSlotStart("xyz")).toBeUndefined();
    expect(slotsFromStarts([10n, 0n])).toEqual([r(0n, 10n), r(10n, hashSpaceEnd)]);
    expect(slotsFromStarts([10n])).toBeUndefined();
  });
});

describe("splitting crowded slots", () => {
  const hashesOf = (names: string[]) => sortHashes(names.map(fnv1a64));
  const scale = Array.from({ length: 100 }, (_, i) => `scale-${i}`);

  test("names that differ only at the end crowd a few root slots; splits part them at short bounds, halving each time", () => {
    const hashes = hashesOf(scale);
    expect(new Set(slotWeights(rootSlots(), hashes).filter((w) => w > 0)).size).toBeLessThanOrEqual(2);
    const split = splitHeavySlots(rootSlots(), hashes, 2, () => true)!;
    expect(Math.max(...slotWeights(split.slots, hashes))).toBeLessThanOrEqual(2);
    expect(normalizeRanges(split.slots)).toEqual([r(0n, hashSpaceEnd)]);
    // About 100/2 slots more, not the hundreds halving the hash range would leave empty.
    expect(split.slots.length - rootSlotCount).toBeLessThan(100);
    for (const slot of split.slots) expect(formatSlotStart(slot.start).length).toBeLessThanOrEqual(12);
    split.origin.forEach((origin, i) => expect(rangesContain([rootSlots()[origin]!], split.slots[i]!.start)).toBe(true));
  });

  test("only slots allowed are split, nothing needs splitting twice, and the table stays within its bound", () => {
    const hashes = hashesOf(scale);
    const crowded = slotWeights(rootSlots(), hashes).findIndex((w) => w > 2);
    const split = splitHeavySlots(rootSlots(), hashes, 2, (index) => index !== crowded)!;
    expect(split.origin.filter((origin) => origin === crowded)).toHaveLength(1);
    const all = splitHeavySlots(rootSlots(), hashes, 2, () => true)!;
    expect(splitHeavySlots(all.slots, hashes, 2, () => true)).toBeUndefined();
    const many = hashesOf(Array.from({ length: 5000 }, (_, i) => `tenant-${i}`));
    expect(splitHeavySlots(rootSlots(), many, 1, () => true)!.slots).toHaveLength(maxSlots);
    expect(splitHeavySlots(rootSlots(), hashesOf(["default", "kube-system"]), 1, () => true)).toBeUndefined();
  });
});

describe("planning who holds each slot", () => {
  const members = (n: number) => Array.from({ length: n }, (_, i) => `kube-loom-${i}-${(i * 7919).toString(16)}`);
  const base = ["default", "kube-system", "kube-public", "kube-node-lease"];

  /** Splits and plans over and over from `holders`, as the members' steps do, until the plan is what the table says. */
  function settle(names: string[], ring: string[], from?: { slots: HashRange[]; holders: (string | undefined)[] }) {
    const hashes = sortHashes(new Set(["", ...names].map(fnv1a64)));
    let slots = from?.slots ?? rootSlots();
    let holders = from?.holders ?? slots.map(() => undefined);
    for (let round = 0; round < 10; round++) {
      const split = splitHeavySlots(slots, hashes, maxSlotWeight(hashes.length, ring.length), () => true);
      if (split) [slots, holders] = [split.slots, split.origin.map((i) => holders[i])];
      const owners = planSlotOwners({ slots, holders: holders.map((h) => (h !== undefined && ring.includes(h) ? h : undefined)), members: ring, weights: slotWeights(slots, hashes) });
      if (owners.every((owner, i) => owner === holders[i])) return { slots, holders };
      holders = owners;
    }
    throw new Error("the plan does not settle");
  }
  const holderOf = (table: { slots: HashRange[]; holders: (string | undefined)[] }, name: string) => table.holders[slotIndexOf(table.slots, fnv1a64(name))];

  for (const [scheme, names] of [
    ["scale-0 … scale-99", Array.from({ length: 100 }, (_, i) => `scale-${i}`)],
    ["tenant-0 … tenant-999", Array.from({ length: 1000 }, (_, i) => `tenant-${i}`)],
  ] as const) {
    test(`${scheme}: 3 members hold a third each (±20 %); a 4th takes at most 1.2/4 of them, all from the others`, () => {
      const three = members(3);
      const before = settle([...base, ...names], three);
      for (const member of three) expect(Math.abs(names.filter((n) => holderOf(before, n) === member).length / names.length - 1 / 3)).toBeLessThanOrEqual(0.2 / 3);
      const four = members(4);
      const after = settle([...base, ...names], four, before);
      const moved = names.filter((n) => holderOf(before, n) !== holderOf(after, n));
      expect(moved.length).toBeLessThanOrEqual((1.2 * names.length) / 4);
      for (const n of moved) expect(holderOf(after, n)).toBe(four[3]!);
      for (const member of four) expect(Math.abs(names.filter((n) => holderOf(after, n) === member).length / names.length - 1 / 4)).toBeLessThanOrEqual(0.2 / 4);
      // The 4th leaving again gives its namespaces to the others, whose own stay.
      const back = settle([...base, ...names], three, after);
      for (const n of names) if (holderOf(after, n) !== four[3]) expect(holderOf(back, n)).toBe(holderOf(after, n)!);
    });
  }

  test("namespaces created one by one move others' slots only now and then, and the shares stay within an eighth or so", () => {
    const names = [...base, ...Array.from({ length: 100 }, (_, i) => `scale-${i}`)];
    let table = settle(names, members(3));
    let creationsThatMoved = 0;
    for (let i = 100; i < 120; i++) {
      names.push(`scale-${i}`);
      const next = settle(names, members(3), table);
      if (names.slice(0, -1).some((n) => holderOf(table, n) !== holderOf(next, n))) creationsThatMoved++;
      table = next;
    }
    expect(creationsThatMoved).toBeLessThanOrEqual(5);
    for (const member of members(3)) expect(Math.abs(names.filter((n) => holderOf(table, n) === member).length / names.length - 1 / 3)).toBeLessThanOrEqual(0.2 / 3);
  });

  test("does not depend on the order the members are listed in", () => {
    const hashes = sortHashes(["", ...base].map(fnv1a64));
    const input = { slots: rootSlots(), holders: rootSlots().map(() => undefined), weights: slotWeights(rootSlots(), hashes) };
    expect(planSlotOwners({ ...input, members: members(4).reverse() })).toEqual(planSlotOwners({ ...input, members: members(4) }));
  });

  test("slots without namespaces go with the slot before them", () => {
    const slots = [r(0n, 10n), r(10n, 20n), r(20n, 30n), r(30n, hashSpaceEnd)];
    const owners = planSlotOwners({ slots, holders: ["a", undefined, "b", undefined], members: ["a", "b"], weights: [1, 0, 1, 0] });
    expect(owners).toEqual(["a", "a", "b", "b"]);
  });
});
