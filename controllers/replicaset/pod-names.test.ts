import { describe, expect, test } from "bun:test";
import { generatedName } from "./pod-names.ts";

describe("generatedName", () => {
  test("appends 5 characters of the API server's alphabet to the prefix", () => {
    expect(generatedName("web-")).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test("cuts a long prefix to 58 characters, so the name stays within 63", () => {
    const name = generatedName(`${"a".repeat(70)}-`);
    expect(name).toHaveLength(63);
    expect(name.startsWith("a".repeat(58))).toBe(true);
  });

  test("draws a different name each time", () => {
    expect(new Set(Array.from({ length: 50 }, () => generatedName("web-"))).size).toBe(50);
  });
});
