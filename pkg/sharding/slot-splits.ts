// Splitting the slots that hold too many namespaces. FNV-1a's top bits hardly depend on a name's
// last characters, so `tenant-0` … `tenant-999` land in 14 of the 256 root slots; cutting a slot
// in the middle of its hash range would need some 40 halvings (each leaving an empty half) before
// such names part. A slot is cut instead between its middle two namespaces, at the shortest bound
// that parts them, so each half holds half of them and the table stays short.
import { type HashRange, hashSpaceEnd } from "./hash-range.ts";
import { slotIndexOf } from "./slots.ts";

/** No split makes the table longer than this: the table is an annotation and every member's share is a selector. */
export const maxSlots = 1024;

/** Namespaces per member a slot may hold at most: 1/16 of a fair share (at least 1), so shares come out within a few percent. */
export function maxSlotWeight(namespaces: number, members: number): number {
  return Math.max(1, Math.floor(namespaces / (16 * Math.max(1, members))));
}

export function sortHashes(hashes: Iterable<bigint>): bigint[] {
  return [...hashes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** How many of `hashes` (sorted) fall in each slot. */
export function slotWeights(slots: readonly HashRange[], hashes: readonly bigint[]): number[] {
  const weights = slots.map(() => 0);
  for (const hash of hashes) weights[slotIndexOf(slots, hash)]!++;
  return weights;
}

/** The new slots, and for each the index of the slot it was cut from. */
export interface SplitSlots {
  slots: HashRange[];
  origin: number[];
}

/**
 * Cuts every slot that `splittable` allows and that holds more than `maxWeight` of `hashes` (sorted)
 * in two, again and again, until none does (or the table would pass maxSlots). Undefined when
 * nothing needs cutting.
 */
export function splitHeavySlots(slots: readonly HashRange[], hashes: readonly bigint[], maxWeight: number, splittable: (index: number) => boolean): SplitSlots | undefined {
  const result: SplitSlots = { slots: [], origin: [] };
  let budget = maxSlots - slots.length;
  let split = false;
  let next = 0;
  slots.forEach((slot, index) => {
    const from = next;
    while (next < hashes.length && hashes[next]! < slot.end) next++;
    const inside = hashes.slice(from, next);
    const cut = (range: HashRange, held: readonly bigint[]): void => {
      const bound = budget > 0 && held.length > maxWeight && splittable(index) ? middleBound(held) : undefined;
      if (bound === undefined) {
        result.slots.push(range);
        result.origin.push(index);
        return;
      }
      budget--;
      split = true;
      const half = held.findIndex((hash) => hash >= bound);
      cut({ start: range.start, end: bound }, held.slice(0, half));
      cut({ start: bound, end: range.end }, held.slice(half));
    };
    cut(slot, inside);
  });
  return split ? result : undefined;
}

/**
 * The bound between the lower and the upper half of `hashes` (sorted, at least two) with the fewest
 * significant hex digits; undefined when the two middle hashes are equal (a collision cannot be parted).
 */
function middleBound(hashes: readonly bigint[]): bigint | undefined {
  const half = hashes.length >> 1;
  const below = hashes[half - 1]!;
  const from = hashes[half]!;
  if (below >= from) return undefined;
  for (let unit = 1n << 60n; unit >= 1n; unit >>= 4n) {
    const bound = (below / unit + 1n) * unit;
    if (bound <= from && bound < hashSpaceEnd) return bound;
  }
  return from;
}
