import { describe, expect, test } from "bun:test";
import { obj } from "../../test/support/objects.ts";
import { generationChanged, labelsOrAnnotationsChanged, not, or, passes } from "./predicates.ts";

const before = obj("ns/a", { generation: 1, labels: { tier: "web" } });
const respecced = obj("ns/a", { generation: 2, labels: { tier: "web" } });
const relabelled = obj("ns/a", { generation: 1, labels: { tier: "db" } });
const statusOnly = obj("ns/a", { generation: 1, labels: { tier: "web" }, resourceVersion: "9" });

describe("predicate combinators", () => {
  test("or() passes an update either predicate passes, and drops one both drop", () => {
    const either = or(generationChanged, labelsOrAnnotationsChanged);
    expect(passes([either], "update", before, respecced)).toBe(true);
    expect(passes([either], "update", before, relabelled)).toBe(true);
    expect(passes([either], "update", before, statusOnly)).toBe(false);
    // Neither predicate says anything of creations: they pass.
    expect(passes([either], "add", before)).toBe(true);
  });

  test("not() inverts every kind of event, those the predicate lets through by default too", () => {
    const unchangedSpec = not(generationChanged);
    expect(passes([unchangedSpec], "update", before, statusOnly)).toBe(true);
    expect(passes([unchangedSpec], "update", before, respecced)).toBe(false);
    expect(passes([unchangedSpec], "add", before)).toBe(false);
  });
});
