import { describe, expect, test } from "bun:test";
import { decodeFlagValue, type FlagDefinition, type FlagKind } from "./flag-definition.ts";
import { flagGroup } from "./flag-group.ts";

const tuning = flagGroup("Tuning");

describe("flagGroup", () => {
  test("every constructor puts its flag in the group, with the name, default, help and kind given", () => {
    const flags: [FlagDefinition, FlagKind, unknown][] = [
      [tuning.int("workers", 5, "Help."), "int", 5],
      [tuning.float("qps", 2.5, "Help."), "float", 2.5],
      [tuning.duration("period", 15_000, "Help."), "duration", 15_000],
      [tuning.bool("enabled", true, "Help."), "bool", true],
      [tuning.string("label", "kube-system", "Help."), "string", "kube-system"],
      [tuning.ip("address", "::", "Help."), "ip", "::"],
      [tuning.stringList("names", ["*"], "Help."), "stringList", ["*"]],
      [tuning.intList("ids", [23], "Help."), "intList", [23]],
      [tuning.enum("format", ["json", "text"], "Help."), "enum", "json"],
    ];
    expect(flags.map(([flag]) => flag.name)).toEqual(["workers", "qps", "period", "enabled", "label", "address", "names", "ids", "format"]);
    for (const [flag, kind, value] of flags) {
      expect({ group: flag.group, kind: flag.kind, default: flag.default, shorthand: flag.shorthand }).toEqual({ group: "Tuning", kind, default: value, shorthand: undefined });
      expect(flag.help).toStartWith("Help.");
    }
    expect(tuning.name).toBe("Tuning");
    expect(flagGroup("Other").bool("enabled", false, "").group).toBe("Other");
  });

  test("an enum defaults to its first choice, is typed as their union, and lists them in its help", () => {
    const mode = tuning.enum("mode", ["copy", "link", "none"], "How to mirror.");
    const value: "copy" | "link" | "none" = decodeFlagValue(mode, "link", "--mode");
    expect(value).toBe("link");
    expect(mode.default).toBe("copy");
    expect(mode.helpDefault).toBe('"copy"');
    expect(mode.help).toBe("How to mirror. One of: copy, link, none.");
    expect(() => decodeFlagValue(mode, "move", "--mode")).toThrow("expected one of: copy, link, none");
  });

  test("bounds and shorthand reach the flag", () => {
    const level = tuning.int("v", 0, "Verbosity.", { shorthand: "v", min: 0, max: 10 });
    expect(level.shorthand).toBe("v");
    expect(level.expected).toBe("an integer between 0 and 10");
    expect(() => decodeFlagValue(level, "11", "--v")).toThrow("expected an integer between 0 and 10");
    expect(tuning.float("ratio", 1, "", { min: 0, exclusiveMin: true }).expected).toBe("a number > 0");
    expect(tuning.duration("timeout", 30_000, "", { min: 1000 }).expected).toStartWith("a duration >= 1s");
    expect(tuning.bool("help", false, "", { shorthand: "h" }).shorthand).toBe("h");
    expect(tuning.enum("format", ["json"], "", { shorthand: "o" }).shorthand).toBe("o");
    expect(tuning.duration("grace", 0, "", { min: 0, deprecated: "use --timeout" }).deprecated).toBe("use --timeout");
    expect(tuning.duration("timeout", 0, "").deprecated).toBeUndefined();
  });
});
