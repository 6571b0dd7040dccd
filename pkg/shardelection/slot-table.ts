// Who holds each slot, kept in one object per ring and changed only by compare-and-swap on its
// resourceVersion, so two members can never both be written down as holding a slot. A member
// adds a slot only while nobody holds it (or its holder's Lease is gone), and takes its own
// slots out only after it stopped acting on them: that order is the handover. The slots
// themselves are in the table too (they are split as namespaces crowd them), so every member
// reads the same partition from the same version.
import type { HashRange } from "../sharding/hash-range.ts";
import { namespaceHash } from "../sharding/namespace-hash.ts";
import type { SplitSlots } from "../sharding/slot-splits.ts";
import { formatSlotStart, parseSlotStart, rootSlotCount, rootSlots, slotIndexOf, slotsFromStarts } from "../sharding/slots.ts";

export interface SlotTable {
  /** Sorted, covering the hash space. */
  readonly slots: readonly HashRange[];
  /** Holder (a member Lease's name) by slot index; undefined: free. */
  readonly holders: readonly (string | undefined)[];
}

/**
 * The annotation of the ring's Lease that holds the table: the slots' starts by holder,
 * `{"<member lease>": "0,1,a3,a3c9,…", "-": "<free ones>"}` (see formatSlotStart).
 */
export const slotTableAnnotation = "sharding.kube-loom.io/slot-table";

/**
 * Where members before slots could be split (0.2.0 pre-releases) read the table: 256 slots as
 * `{"<member lease>": "0-84,200-210"}`. Written as every slot held by the ring's own Lease, a
 * holder such a member never sees renew or go away: it takes nothing, while it keeps acting on
 * what it held, which this table still records as its own until it leaves.
 */
export const legacySlotTableAnnotation = "sharding.kube-loom.io/slots";

/** Written where the table is key "-": no Lease name can be that. */
const freeKey = "-";

/** The table annotation could not be read; nothing may be taken or given on such a table. */
export class SlotTableError extends Error {
  override readonly name = "SlotTableError";
}

export function emptySlotTable(): SlotTable {
  const slots = rootSlots();
  return { slots, holders: slots.map(() => undefined) };
}

/** The index of the slot of a namespace ("" for cluster-scoped objects). */
function slotOfNamespace(table: SlotTable, namespace: string): number {
  return slotIndexOf(table.slots, namespaceHash(namespace));
}

/** Who holds the namespace's slot; undefined: nobody. */
export function holderOfNamespace(table: SlotTable, namespace: string): string | undefined {
  return table.holders[slotOfNamespace(table, namespace)];
}

/** How many slots each holder has. */
export function slotCounts(table: SlotTable): Map<string, number> {
  const counts = new Map<string, number>();
  for (const holder of table.holders) if (holder !== undefined) counts.set(holder, (counts.get(holder) ?? 0) + 1);
  return counts;
}

/** The table after `split`: each new slot is held by whoever held the slot it was cut from, so a split moves nothing. */
export function applySplit(table: SlotTable, split: SplitSlots): SlotTable {
  return { slots: split.slots, holders: split.origin.map((index) => table.holders[index]) };
}

export function encodeSlotTable(table: SlotTable): string {
  const starts = new Map<string, string[]>();
  table.slots.forEach((slot, index) => {
    const key = table.holders[index] ?? freeKey;
    const list = starts.get(key) ?? [];
    list.push(formatSlotStart(slot.start));
    starts.set(key, list);
  });
  return JSON.stringify(Object.fromEntries([...starts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, list]) => [key, list.join(",")])));
}

/** What the legacy annotation says in a ring of this version: every slot held by the ring's Lease (see legacySlotTableAnnotation). */
export function legacyPlaceholder(ring: string): string {
  return JSON.stringify({ [ring]: `0-${rootSlotCount - 1}` });
}

/**
 * The table from the ring Lease's annotations: the current one, else the legacy one converted (a ring
 * last written by an older member), else empty. Throws SlotTableError when the current one is unreadable.
 */
export function decodeSlotTable(annotations: Readonly<Record<string, string>> | undefined): SlotTable {
  const text = annotations?.[slotTableAnnotation];
  if (text !== undefined) return decodeCurrent(text);
  return decodeLegacy(annotations?.[legacySlotTableAnnotation]);
}

function decodeCurrent(text: string): SlotTable {
  const bad = (why: string) => new SlotTableError(`annotation ${slotTableAnnotation} of the shard ring's Lease: ${why}; expected {"<member lease>": "<slot starts in hex, comma-separated>", …}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw bad("not an object");
  const holderByStart = new Map<bigint, string | undefined>();
  for (const [key, list] of Object.entries(parsed)) {
    if (typeof list !== "string") throw bad(`the slots of "${key}" are not a string`);
    for (const item of list.split(",")) {
      const start = parseSlotStart(item);
      if (start === undefined) throw bad(`"${item}" is no slot start`);
      if (holderByStart.has(start)) throw bad(`slot ${item} is listed twice`);
      holderByStart.set(start, key === freeKey ? undefined : key);
    }
  }
  const slots = slotsFromStarts([...holderByStart.keys()]);
  if (!slots) throw bad("no slot starts at 0");
  return { slots, holders: slots.map((slot) => holderByStart.get(slot.start)) };
}

/** The 256-slot format; unreadable parts are left free, as the members that wrote it did. */
function decodeLegacy(text: string | undefined): SlotTable {
  const slots = rootSlots();
  const holders: (string | undefined)[] = slots.map(() => undefined);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = {};
  }
  if (typeof parsed !== "object" || parsed === null) return { slots, holders };
  for (const [holder, runs] of Object.entries(parsed)) {
    if (typeof runs !== "string") continue;
    for (const run of runs.split(",")) {
      const [first, last = first] = run.split("-").map(Number);
      if (!Number.isInteger(first) || !Number.isInteger(last)) continue;
      for (let slot = Math.max(0, first!); slot <= Math.min(rootSlotCount - 1, last!); slot++) holders[slot] = holder;
    }
  }
  return { slots, holders };
}
