// Ranges of the 64-bit hash space, [start, end), as the API server's shard selector takes them:
// `shardRange(<field>, '0x<16 hex digits>', '0x<16 hex digits>')`, several joined with `||`;
// the end of the last range is 2^64, written with 17 digits.
export const hashSpaceEnd = 1n << 64n;

/** Part of the 64-bit hash space, e.g. the namespaces a shard ring member caches. */
export interface HashRange {
  /** Inclusive. */
  readonly start: bigint;
  /** Exclusive; at most 2^64. */
  readonly end: bigint;
}

/** The fields the API server can shard on. */
export type ShardKey = "object.metadata.namespace" | "object.metadata.uid";

/** Sorted, with touching and overlapping ranges merged and empty ones left out. */
export function normalizeRanges(ranges: readonly HashRange[]): HashRange[] {
  const sorted = ranges.filter((r) => r.start < r.end).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: HashRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.start <= last.end) merged[merged.length - 1] = { start: last.start, end: range.end > last.end ? range.end : last.end };
    else merged.push(range);
  }
  return merged;
}

/** True when `hash` falls in one of `ranges` (normalized: sorted and disjoint). */
export function rangesContain(ranges: readonly HashRange[], hash: bigint): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle]!;
    if (hash < range.start) high = middle - 1;
    else if (hash >= range.end) low = middle + 1;
    else return true;
  }
  return false;
}

/** What of `from` is not in `taken` (both normalized). */
export function subtractRanges(from: readonly HashRange[], taken: readonly HashRange[]): HashRange[] {
  const left: HashRange[] = [];
  for (const range of from) {
    let start = range.start;
    for (const cut of taken) {
      if (cut.end <= start || cut.start >= range.end) continue;
      if (cut.start > start) left.push({ start, end: cut.start });
      start = cut.end > start ? cut.end : start;
    }
    if (start < range.end) left.push({ start, end: range.end });
  }
  return normalizeRanges(left);
}

/** What `a` and `b` share. */
export function intersectRanges(a: readonly HashRange[], b: readonly HashRange[]): HashRange[] {
  return subtractRanges(a, subtractRanges(a, b));
}

export function sameRanges(a: readonly HashRange[], b: readonly HashRange[]): boolean {
  return a.length === b.length && a.every((range, i) => range.start === b[i]!.start && range.end === b[i]!.end);
}

/** The bound as the API server writes it: 0x and 16 lowercase hex digits (17 for 2^64). */
export function formatHashBound(value: bigint): string {
  return `0x${value.toString(16).padStart(16, "0")}`;
}

/** The `shardSelector` query parameter for `ranges` (normalized, not empty). */
export function shardSelector(key: ShardKey, ranges: readonly HashRange[]): string {
  if (ranges.length === 0) throw new Error("a shard selector needs at least one range");
  return ranges.map((r) => `shardRange(${key}, '${formatHashBound(r.start)}', '${formatHashBound(r.end)}')`).join(" || ");
}

/** One range as the status page and logs write it: "0x…-0x…", bounds as the API server writes them. */
export function describeRange(range: HashRange): string {
  return `${formatHashBound(range.start)}-${formatHashBound(range.end)}`;
}

/** The ranges, comma-separated (see describeRange). */
export function describeRanges(ranges: readonly HashRange[]): string {
  return ranges.map(describeRange).join(", ");
}
