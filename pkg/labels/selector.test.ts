import { describe, expect, test } from "bun:test";
import { parseSelector, selectorFromLabelSelector } from "./selector.ts";

describe("parseSelector", () => {
  const labels = { app: "web", tier: "front", version: "3", empty: "" };

  test("equality, inequality, set and existence requirements", () => {
    expect(parseSelector("app=web").matches(labels)).toBe(true);
    expect(parseSelector("app==web").matches(labels)).toBe(true);
    expect(parseSelector("app=db").matches(labels)).toBe(false);
    expect(parseSelector("app!=db").matches(labels)).toBe(true);
    expect(parseSelector("missing!=x").matches(labels)).toBe(true);
    expect(parseSelector("tier in (front, back)").matches(labels)).toBe(true);
    expect(parseSelector("tier notin (front)").matches(labels)).toBe(false);
    expect(parseSelector("missing notin (front)").matches(labels)).toBe(true);
    expect(parseSelector("app").matches(labels)).toBe(true);
    expect(parseSelector("!app").matches(labels)).toBe(false);
    expect(parseSelector("!missing").matches(labels)).toBe(true);
    expect(parseSelector("empty=").matches(labels)).toBe(true);
    // As in apimachinery, "()" is the set holding the empty value.
    expect(parseSelector("empty in ()").matches(labels)).toBe(true);
    expect(parseSelector("version>2,version<4").matches(labels)).toBe(true);
    expect(parseSelector("version>3").matches(labels)).toBe(false);
  });

  test("the full form from the docs: all requirements must hold", () => {
    const selector = parseSelector("a=b,c!=d,e in (f,g),!h,i");
    expect(selector.requirements.map((r) => r.operator)).toEqual(["In", "NotIn", "In", "DoesNotExist", "Exists"]);
    expect(selector.matches({ a: "b", e: "g", i: "" })).toBe(true);
    expect(selector.matches({ a: "b", e: "g", i: "", h: "x" })).toBe(false);
    expect(selector.matches({ a: "b", e: "z", i: "" })).toBe(false);
    expect(selector.matches({ a: "b", c: "d", e: "f", i: "" })).toBe(false);
  });

  test("the empty selector matches everything, even objects without labels", () => {
    expect(parseSelector("").matches(undefined)).toBe(true);
    expect(parseSelector("  ").matches({ a: "b" })).toBe(true);
  });

  test("rejects malformed input", () => {
    for (const bad of ["a=b,", "a b", "in (", "x in (a", "!", "a=b=c", "bad key=x", "x>y", "a=(b)", "-a=b"]) {
      expect(() => parseSelector(bad), bad).toThrow(SyntaxError);
    }
  });

  test("accepts prefixed keys", () => {
    expect(parseSelector("app.kubernetes.io/name=web").matches({ "app.kubernetes.io/name": "web" })).toBe(true);
  });
});

describe("selectorFromLabelSelector", () => {
  test("matchLabels and matchExpressions combine with AND", () => {
    const selector = selectorFromLabelSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["front", "edge"] },
        { key: "canary", operator: "DoesNotExist" },
        { key: "env", operator: "Exists" },
        { key: "zone", operator: "NotIn", values: ["b"] },
      ],
    });
    expect(selector.matches({ app: "web", tier: "edge", env: "prod", zone: "a" })).toBe(true);
    expect(selector.matches({ app: "web", tier: "edge", env: "prod", zone: "b" })).toBe(false);
    expect(selector.matches({ app: "web", tier: "edge", env: "prod", canary: "1" })).toBe(false);
    expect(selector.matches({ app: "web", tier: "back", env: "prod" })).toBe(false);
    expect(selector.matches({ tier: "edge", env: "prod" })).toBe(false);
  });

  test("undefined selects nothing, {} selects everything", () => {
    expect(selectorFromLabelSelector(undefined).matches({ a: "b" })).toBe(false);
    expect(selectorFromLabelSelector({}).matches({ a: "b" })).toBe(true);
  });

  test("rejects unknown operators and invalid value counts", () => {
    expect(() => selectorFromLabelSelector({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] })).toThrow(SyntaxError);
    expect(() => selectorFromLabelSelector({ matchExpressions: [{ key: "a", operator: "In", values: [] }] })).toThrow(SyntaxError);
    expect(() => selectorFromLabelSelector({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] })).toThrow(SyntaxError);
  });
});
