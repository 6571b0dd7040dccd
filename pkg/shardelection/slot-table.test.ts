import { describe, expect, test } from "bun:test";
import { fnv1a64 } from "../sharding/fnv1a64.ts";
import { slotWeights, sortHashes, splitHeavySlots } from "../sharding/slot-splits.ts";
import { rootSlotCount } from "../sharding/slots.ts";
import {
  applySplit,
  decodeSlotTable,
  emptySlotTable,
  encodeSlotTable,
  holderOfNamespace,
  legacyPlaceholder,
  legacySlotTableAnnotation,
  SlotTableError,
  slotCounts,
  slotTableAnnotation,
} from "./slot-table.ts";

const scale = Array.from({ length: 100 }, (_, i) => `scale-${i}`);

/** Root slots 0-127 held by loom-a, 128-199 by loom-b, the rest free. */
function rootTable() {
  const { slots } = emptySlotTable();
  return { slots, holders: slots.map((_, i) => (i < 128 ? "loom-a" : i < 200 ? "loom-b" : undefined)) };
}

function splitTable() {
  const hashes = sortHashes(scale.map(fnv1a64));
  return applySplit(rootTable(), splitHeavySlots(rootTable().slots, hashes, 2, () => true)!);
}

describe("slot table", () => {
  test("a split keeps every namespace with the holder it had", () => {
    const after = splitTable();
    expect(after.slots.length).toBeGreaterThan(rootSlotCount);
    for (const namespace of scale) expect(holderOfNamespace(after, namespace)).toBe(holderOfNamespace(rootTable(), namespace));
  });

  test("is written as slot starts by holder and read back the same, free slots included", () => {
    const table = splitTable();
    const text = encodeSlotTable(table);
    expect(JSON.parse(text)).toMatchObject({ "-": expect.stringMatching(/^c8,c9,/) });
    expect(decodeSlotTable({ [slotTableAnnotation]: text })).toEqual(table);
    expect(slotCounts(table).get("loom-b")).toBe(table.holders.filter((h) => h === "loom-b").length);
    // Small enough for an annotation even when split to the bound.
    expect(text.length).toBeLessThan(4000);
    expect(slotWeights(table.slots, sortHashes(scale.map(fnv1a64))).every((w) => w <= 2)).toBe(true);
  });

  test("a table of the 256-slot format is converted; the placeholder written beside the current one reads, in that format, as every slot held by the ring's Lease", () => {
    const legacy = decodeSlotTable({ [legacySlotTableAnnotation]: JSON.stringify({ "loom-a": "0-84,200", "loom-b": "85-199" }) });
    expect(legacy.slots).toHaveLength(rootSlotCount);
    expect(legacy.holders[200]).toBe("loom-a");
    expect(legacy.holders[201]).toBeUndefined();
    expect(legacy.holders[100]).toBe("loom-b");
    expect(new Set(decodeSlotTable({ [legacySlotTableAnnotation]: legacyPlaceholder("loom") }).holders)).toEqual(new Set(["loom"]));
    // The current annotation wins over the placeholder.
    expect(decodeSlotTable({ [slotTableAnnotation]: encodeSlotTable(emptySlotTable()), [legacySlotTableAnnotation]: legacyPlaceholder("loom") })).toEqual(emptySlotTable());
    expect(decodeSlotTable(undefined)).toEqual(emptySlotTable());
  });

  test("an unreadable table is an error naming what is wrong, never an empty table", () => {
    for (const [text, why] of [
      ["nope", "not JSON"],
      ["[]", "not an object"],
      ['{"loom-a": 3}', 'the slots of "loom-a" are not a string'],
      ['{"loom-a": "0,zz"}', '"zz" is no slot start'],
      ['{"loom-a": "0,1", "-": "1"}', "slot 1 is listed twice"],
      ['{"loom-a": "1"}', "no slot starts at 0"],
    ] as const) {
      expect(() => decodeSlotTable({ [slotTableAnnotation]: text })).toThrow(SlotTableError);
      expect(() => decodeSlotTable({ [slotTableAnnotation]: text })).toThrow(why);
    }
  });
});
