// The hash space cut into equal slots: the unit a ring member holds and hands over. A slot is the
// top bits of the hash, so a set of slots is a set of contiguous ranges the API server can filter by.
import { type HashRange, normalizeRanges } from "./hash-range.ts";
import { namespaceHash } from "./namespace-hash.ts";

/** 256 slots: with 3 members each holds 85 or 86, within a few percent of a third. */
export const slotCount = 256;
const slotShift = 56n;

export function slotOfHash(hash: bigint): number {
  return Number(hash >> slotShift);
}

export function slotRange(slot: number): HashRange {
  const start = BigInt(slot) << slotShift;
  return { start, end: start + (1n << slotShift) };
}

/** The slots as the fewest ranges. */
export function rangesOfSlots(slots: Iterable<number>): HashRange[] {
  return normalizeRanges([...slots].map(slotRange));
}

/** The slot of a namespace ("" for cluster-scoped objects); its hash is remembered (namespace-hash.ts). */
export function namespaceSlot(namespace: string): number {
  return slotOfHash(namespaceHash(namespace));
}
