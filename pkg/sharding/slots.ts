// Slots: the parts of the hash space a ring member holds and hands over. They start as 256 equal
// parts (the hash's top byte) and a slot holding too many namespaces is split in two between its
// middle namespaces (slot-splits.ts), so slots vary in width; sorted and contiguous, they always
// cover the whole space once, and any set of them is a set of ranges the API server can filter by.
import { type HashRange, hashSpaceEnd, normalizeRanges } from "./hash-range.ts";

/** The slots a ring starts with: 256, so that randomly named namespaces spread without any split. */
export const rootSlotCount = 256;
const rootShift = 56n;

/** The 256 equal slots, in order. */
export function rootSlots(): HashRange[] {
  return Array.from({ length: rootSlotCount }, (_, i) => ({ start: BigInt(i) << rootShift, end: (BigInt(i) + 1n) << rootShift }));
}

/** The index of the slot that holds `hash` among `slots` (sorted, covering the whole space). */
export function slotIndexOf(slots: readonly HashRange[], hash: bigint): number {
  let low = 0;
  let high = slots.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (slots[middle]!.start <= hash) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The slots as the fewest ranges. */
export function rangesOfSlots(slots: Iterable<HashRange>): HashRange[] {
  return normalizeRanges([...slots]);
}

/**
 * A slot's start as the table writes it: the hex digits of the 64-bit bound with the trailing zeros
 * left out ("a3" is 0xa300000000000000, "0" is 0), so the root slots take two digits and a split
 * point (chosen short, see slot-splits.ts) few more.
 */
export function formatSlotStart(start: bigint): string {
  return start.toString(16).padStart(16, "0").replace(/0+$/, "") || "0";
}

/** The bound formatSlotStart wrote; undefined for anything else. */
export function parseSlotStart(text: string): bigint | undefined {
  if (!/^[0-9a-f]{1,16}$/.test(text)) return undefined;
  return BigInt(`0x${text.padEnd(16, "0")}`);
}

/** The partition whose slots start at `starts` (any order); undefined unless they begin at 0 and are distinct. */
export function slotsFromStarts(starts: readonly bigint[]): HashRange[] | undefined {
  const sorted = [...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted[0] !== 0n) return undefined;
  const slots: HashRange[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const end = sorted[i + 1] ?? hashSpaceEnd;
    if (end <= sorted[i]!) return undefined;
    slots.push({ start: sorted[i]!, end });
  }
  return slots;
}
