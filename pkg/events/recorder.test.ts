import { describe, expect, test } from "bun:test";
import { formatMicroTime } from "../kube/micro-time.ts";
import { EventNameSuffixes, makeEvent, noteLimitBytes, truncateNote } from "./recorder.ts";

const source = { reportingController: "kube-loom", reportingInstance: "host-1" };

describe("formatMicroTime", () => {
  test("writes six fractional digits", () => {
    expect(formatMicroTime(Date.parse("2026-11-21T23:40:01.123Z"))).toBe("2026-11-21T23:40:01.123000Z");
    expect(formatMicroTime(Date.parse("2026-01-02T03:04:05Z"))).toBe("2026-01-02T03:04:05.000000Z");
  });
});

describe("truncateNote", () => {
  test("keeps notes up to 1 KiB as they are", () => {
    const note = "x".repeat(noteLimitBytes);
    expect(truncateNote(note)).toBe(note);
  });

  test("cuts longer notes to 1 KiB of UTF-8, marking the cut", () => {
    const truncated = truncateNote("x".repeat(2000));
    expect(new TextEncoder().encode(truncated).length).toBe(noteLimitBytes);
    expect(truncated.endsWith("x ...")).toBe(true);
  });

  test("never splits a multi-byte character", () => {
    // "€" is three bytes, so 1020 bytes of room hold 340 of them exactly; "ü" (two bytes) leaves one byte over.
    expect(truncateNote("€".repeat(400))).toBe(`${"€".repeat(340)} ...`);
    const umlauts = truncateNote("ü".repeat(600));
    expect(umlauts).toBe(`${"ü".repeat(510)} ...`);
  });
});

describe("EventNameSuffixes", () => {
  test("are hex nanoseconds, strictly increasing within a millisecond", () => {
    const suffixes = new EventNameSuffixes();
    const first = suffixes.next(1_700_000_000_000);
    const second = suffixes.next(1_700_000_000_000);
    expect(BigInt(`0x${first}`)).toBe(1_700_000_000_000n * 1_000_000n);
    expect(BigInt(`0x${second}`)).toBe(BigInt(`0x${first}`) + 1n);
    expect(BigInt(`0x${suffixes.next(1_700_000_000_001)}`)).toBe(1_700_000_000_001n * 1_000_000n);
  });
});

describe("makeEvent", () => {
  const details = { related: undefined, type: "Normal", reason: "Synced", action: "Sync", note: "ok" } as const;

  test("names the Event after the regarding object", () => {
    const event = makeEvent({ ...details, regarding: { metadata: { name: "cm", namespace: "ns" } } }, source, 0, "abc");
    expect(event.metadata).toEqual({ name: "cm.abc", namespace: "ns" });
    expect(event.eventTime).toBe("1970-01-01T00:00:00.000000Z");
  });

  test("refuses an object without a name", () => {
    expect(() => makeEvent({ ...details, regarding: { metadata: { namespace: "ns" } } }, source, 0, "abc")).toThrow(/no metadata.name/);
  });
});
