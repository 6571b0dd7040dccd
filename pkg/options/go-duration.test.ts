import { describe, expect, test } from "bun:test";
import { formatGoDuration, parseGoDuration } from "./go-duration.ts";

describe("parseGoDuration", () => {
  test.each([
    ["15s", 15_000],
    ["1m30s", 90_000],
    ["500ms", 500],
    ["2h", 7_200_000],
    ["1.5h", 5_400_000],
    ["1.1s", 1100],
    [".5s", 500],
    ["1.s", 1000],
    ["1h2m3s4ms", 3_723_004],
    ["250us", 0.25],
    ["250µs", 0.25],
    ["3ns", 0.000003],
    ["0", 0],
    ["-0", 0],
    ["0s", 0],
    ["-1m", -60_000],
    ["+5s", 5000],
  ])("%p is %p ms", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  test.each(["", "5", "s", ".s", "1x", "1 s", "1s ", "1d", "--1s", "1.5.s", "1s-2s", "3000000h"])("%p is rejected", (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});

describe("formatGoDuration", () => {
  test.each([
    [0, "0s"],
    [500, "500ms"],
    [1.5, "1.5ms"],
    [0.25, "250µs"],
    [15_000, "15s"],
    [60_000, "1m0s"],
    [90_500, "1m30.5s"],
    [12 * 3_600_000, "12h0m0s"],
    [-2000, "-2s"],
  ])("%p ms prints as %p", (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
