// Who holds each slot, kept in one object per ring and changed only by compare-and-swap on its
// resourceVersion, so two members can never both be written down as holding a slot. A member
// adds a slot only while nobody holds it (or its holder's Lease is gone), and takes its own
// slots out only after it stopped acting on them: that order is the handover.
import { slotCount } from "../sharding/slots.ts";

/** Holder (a member Lease's name) by slot; undefined: free. */
export type SlotHolders = readonly (string | undefined)[];

/** The annotation of the ring's Lease that holds the table: `{"<member lease>": "0-84,200-210", …}`. */
export const slotTableAnnotation = "sharding.kube-loom.io/slots";

export function emptySlotTable(): SlotHolders {
  return Array.from({ length: slotCount }, () => undefined);
}

/** Slot runs per holder, e.g. {"ring-a": "0-84,200"}: short, and readable with kubectl. */
export function encodeSlotTable(holders: SlotHolders): string {
  const runs = new Map<string, string[]>();
  let slot = 0;
  while (slot < slotCount) {
    const holder = holders[slot];
    let end = slot;
    while (end + 1 < slotCount && holders[end + 1] === holder) end++;
    if (holder !== undefined) {
      const list = runs.get(holder) ?? [];
      list.push(end === slot ? `${slot}` : `${slot}-${end}`);
      runs.set(holder, list);
    }
    slot = end + 1;
  }
  return JSON.stringify(Object.fromEntries([...runs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([holder, list]) => [holder, list.join(",")])));
}

/** The table from the annotation; absent or unreadable: empty (a member rewrites it on its next change). */
export function decodeSlotTable(text: string | undefined): SlotHolders {
  const holders: (string | undefined)[] = emptySlotTable().slice();
  if (!text) return holders;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return holders;
  }
  if (typeof parsed !== "object" || parsed === null) return holders;
  for (const [holder, runs] of Object.entries(parsed)) {
    if (typeof runs !== "string") continue;
    for (const run of runs.split(",")) {
      const [first, last = first] = run.split("-").map(Number);
      if (!Number.isInteger(first) || !Number.isInteger(last)) continue;
      for (let slot = Math.max(0, first!); slot <= Math.min(slotCount - 1, last!); slot++) holders[slot] = holder;
    }
  }
  return holders;
}

/** The slots `holder` holds. */
export function slotsOf(holders: SlotHolders, holder: string): number[] {
  const slots: number[] = [];
  holders.forEach((h, slot) => {
    if (h === holder) slots.push(slot);
  });
  return slots;
}
