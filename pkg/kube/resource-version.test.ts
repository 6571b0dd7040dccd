import { describe, expect, test } from "bun:test";
import { compareResourceVersions } from "./resource-version.ts";

describe("compareResourceVersions", () => {
  test("orders integers by value, beyond what a double holds exactly", () => {
    expect(compareResourceVersions("9", "10")).toBeLessThan(0);
    expect(compareResourceVersions("10", "9")).toBeGreaterThan(0);
    expect(compareResourceVersions("123", "123")).toBe(0);
    expect(compareResourceVersions("18446744073709551615", "18446744073709551614")).toBeGreaterThan(0);
  });

  test("empty, zero-padded and non-numeric versions cannot be ordered", () => {
    for (const bad of ["", "0", "007", "abc", "-1", "1.5", " 1"]) {
      expect(compareResourceVersions(bad, "5")).toBeUndefined();
      expect(compareResourceVersions("5", bad)).toBeUndefined();
    }
  });
});
