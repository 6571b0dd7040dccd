import { describe, expect, test } from "bun:test";
import { durationJson, float32Json, microTimeJson, timeJson } from "./json-forms.ts";

describe("JSON forms", () => {
  test("durations read as Go's time.Duration.String()", () => {
    const cases: [number, string][] = [
      [0, "0s"],
      [1, "1ns"],
      [1_500, "1.5µs"],
      [300_000_000, "300ms"],
      [1_500_000_000, "1.5s"],
      [90_000_000_000, "1m30s"],
      [3_600_000_000_000, "1h0m0s"],
      [3_723_000_000_001, "1h2m3.000000001s"],
      [-5_000_000_000, "-5s"],
    ];
    for (const [nanoseconds, text] of cases) expect(durationJson(nanoseconds)).toBe(text);
  });

  test("times: seconds for Time, always six digits for MicroTime, null for the zero time", () => {
    expect(timeJson(1_764_274_493, 999_999_999)).toBe("2025-11-27T20:14:53Z");
    expect(microTimeJson(1_764_274_493, 0)).toBe("2025-11-27T20:14:53.000000Z");
    expect(microTimeJson(1_764_274_493, 7_000)).toBe("2025-11-27T20:14:53.000007Z");
    expect(timeJson(0, 0)).toBeNull();
    expect(microTimeJson(0, 0)).toBeNull();
    expect(timeJson(-62_135_596_800, 0)).toBe("0001-01-01T00:00:00Z");
  });

  test("float32 as its shortest decimal", () => {
    expect(float32Json(Math.fround(0.1))).toBe(0.1);
    expect(float32Json(Math.fround(2.5))).toBe(2.5);
  });
});
