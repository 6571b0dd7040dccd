import { describe, expect, test } from "bun:test";
import {
  boolFlag,
  decodeFlagValue,
  durationFlag,
  enumFlag,
  floatFlag,
  intFlag,
  intListFlag,
  ipFlag,
  stringFlag,
  stringListFlag,
  type FlagDefinition,
} from "./flag-definition.ts";
import { UsageError } from "./usage-error.ts";

const group = "Test";
const workers = intFlag({ name: "workers", group, help: "", default: 5, min: 1 });
const level = intFlag({ name: "level", group, help: "", default: 0, min: 0, max: 10 });
const ratio = floatFlag({ name: "ratio", group, help: "", default: 20, min: 0, exclusiveMin: true });
const enabled = boolFlag({ name: "enabled", group, help: "", default: true });
const label = stringFlag({ name: "label", group, help: "", default: "kube-system" });
const address = ipFlag({ name: "address", group, help: "", default: "0.0.0.0" });
const format = enumFlag({ name: "format", group, help: "Output format.", choices: ["json", "text"], default: "json" });
const period = durationFlag({ name: "period", group, help: "", default: 15_000, min: 1000 });
const names = stringListFlag({ name: "names", group, help: "", default: ["*"] });
const ids = intListFlag({ name: "ids", group, help: "", default: [] });

function accepts<T>(flag: FlagDefinition<T>, input: unknown): T {
  return decodeFlagValue(flag, input, `--${flag.name}`);
}

function rejection(flag: FlagDefinition, input: unknown): string {
  try {
    decodeFlagValue(flag, input, `--${flag.name}`);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(input)} was accepted for --${flag.name}`);
}

describe("int", () => {
  test.each<[unknown, number]>([["7", 7], [" 12 ", 12], ["+3", 3], [9, 9]])("accepts %p", (input, value) => {
    expect(accepts(workers, input)).toBe(value);
  });
  test.each(["0", "-1", "1.5", "abc", "", "1e3", 2.5, true])("rejects %p", (input) => {
    expect(rejection(workers, input)).toBe(`invalid value ${JSON.stringify(input)} for --workers: expected an integer between 1 and 2147483647`);
  });
  test("stays within pflag's int32 range unless the flag is tighter, showing the bound", () => {
    const any = intFlag({ name: "any", group, help: "", default: 0 });
    expect(accepts(any, "-2147483648")).toBe(-2_147_483_648);
    expect(accepts(any, 2_147_483_647)).toBe(2_147_483_647);
    expect(rejection(any, "2147483648")).toBe('invalid value "2147483648" for --any: expected an integer between -2147483648 and 2147483647');
    expect(rejection(any, "99999999999999999999999")).toContain("between -2147483648 and 2147483647");
    const loose = intFlag({ name: "loose", group, help: "", default: 0, min: -1e12, max: 1e12 });
    expect(rejection(loose, "-2147483649")).toContain("expected an integer between -2147483648 and 2147483647");
    const positive = intFlag({ name: "positive", group, help: "", default: 1, min: 0, exclusiveMin: true });
    expect(rejection(positive, "0")).toBe('invalid value "0" for --positive: expected an integer > 0 and <= 2147483647');
  });
  test("names both bounds", () => {
    expect(rejection(level, "11")).toBe('invalid value "11" for --level: expected an integer between 0 and 10');
  });
});

describe("float", () => {
  test.each<[unknown, number]>([["50", 50], ["0.5", 0.5], [".5", 0.5], ["1e2", 100], [7.25, 7.25]])("accepts %p", (input, value) => {
    expect(accepts(ratio, input)).toBe(value);
  });
  test.each(["fast", "0", "-1", "", "Infinity", "NaN", "1.2.3"])("rejects %p", (input) => {
    expect(rejection(ratio, input)).toBe(`invalid value ${JSON.stringify(input)} for --ratio: expected a number > 0`);
  });
});

describe("bool", () => {
  test.each<[unknown, boolean]>([
    ["true", true], ["True", true], ["TRUE", true], ["t", true], ["1", true], [true, true],
    ["false", false], ["False", false], ["FALSE", false], ["f", false], ["0", false], [false, false],
  ])("accepts %p as %p", (input, value) => {
    expect(accepts(enabled, input)).toBe(value);
  });
  test.each(["yes", "no", "", "tRuE", 1])("rejects %p", (input) => {
    expect(rejection(enabled, input)).toBe(`invalid value ${JSON.stringify(input)} for --enabled: expected true or false`);
  });
});

describe("string and ip", () => {
  test("a string is taken as it is", () => {
    expect(accepts(label, " a b ")).toBe(" a b ");
    expect(rejection(label, 5)).toBe("invalid value 5 for --label: expected a string");
  });
  test.each(["127.0.0.1", "::", "::1", "fe80::1"])("accepts the address %p", (input) => {
    expect(accepts(address, input)).toBe(input);
  });
  test.each(["localhost", "300.1.1.1", ""])("rejects %p", (input) => {
    expect(rejection(address, input)).toBe(`invalid value ${JSON.stringify(input)} for --address: expected an IP address such as 0.0.0.0 or ::`);
  });
});

describe("enum", () => {
  test("accepts a choice, typed as the union of choices", () => {
    const value: "json" | "text" = accepts(format, "text");
    expect(value).toBe("text");
  });
  test("rejects anything else, listing the choices", () => {
    expect(rejection(format, "xml")).toBe('invalid value "xml" for --format: expected one of: json, text');
  });
  test("help lists the choices", () => {
    expect(format.help).toBe("Output format. One of: json, text.");
  });
});

describe("duration", () => {
  test.each<[string, number]>([["15s", 15_000], ["1m30s", 90_000], ["1.5s", 1500], ["2h", 7_200_000]])("accepts %p", (input, ms) => {
    expect(accepts(period, input)).toBe(ms);
  });
  test.each(["15", "fast", "", "500ms", "-1s"])("rejects %p", (input) => {
    expect(rejection(period, input)).toBe(
      `invalid value ${JSON.stringify(input)} for --period: expected a duration >= 1s written like 15s, 1m30s, 500ms or 2h`,
    );
  });
  test("a bare YAML number is not a duration", () => {
    expect(rejection(period, 15)).toStartWith("invalid value 15 for --period: expected a duration");
  });
});

describe("string list", () => {
  test.each<[unknown, string[]]>([
    ["a,b,-c", ["a", "b", "-c"]],
    ["*", ["*"]],
    [" a , b ,", ["a", "b"]],
    ["", []],
    [["*", "-network"], ["*", "-network"]],
  ])("accepts %p", (input, value) => {
    expect(accepts(names, input)).toEqual(value);
  });
  test("rejects a non-string list", () => {
    expect(rejection(names, [1, 2])).toBe("invalid value [1,2] for --names: expected a comma-separated list");
  });
  test("repeats append, other kinds keep the later value", () => {
    expect(names.combine(["a"], ["b", "c"])).toEqual(["a", "b", "c"]);
    expect(workers.combine(3, 4)).toBe(4);
  });
});

describe("int list (pflag's int32Slice)", () => {
  test.each<[unknown, number[]]>([
    ["23,29", [23, 29]],
    [" 4588 , 29 ,", [4588, 29]],
    ["", []],
    [[24, "25"], [24, 25]],
  ])("accepts %p", (input, value) => {
    expect(accepts(ids, input)).toEqual(value);
  });
  test.each(["X25519", "1.5", "1,,x", [1.5]])("rejects %p", (input) => {
    expect(rejection(ids, input)).toBe(`invalid value ${JSON.stringify(input)} for --ids: expected a comma-separated list of integers`);
  });
  test("repeats append; --help names the type as pflag does", () => {
    expect(ids.combine([23], [29])).toEqual([23, 29]);
    expect(ids.typeName).toBe("int32Slice");
  });
});

describe("values as pflag's Value.String() writes them, for /flagz", () => {
  test.each<[FlagDefinition, unknown, string]>([
    [workers, 5, "5"],
    [ratio, 0.5, "0.5"],
    [enabled, false, "false"],
    [label, "kube-system", "kube-system"],
    [address, "::", "::"],
    [format, "text", "text"],
    [period, 12 * 3_600_000, "12h0m0s"],
    [period, 0, "0s"],
    [names, ["*", "-network"], "[*,-network]"],
    [names, [], "[]"],
    [ids, [23, 29], "[23,29]"],
  ])("--%s", (flag, value, text) => {
    expect(flag.text(value)).toBe(text);
  });
});

describe("help defaults follow pflag: omitted for zero values", () => {
  test.each<[FlagDefinition, string | undefined]>([
    [workers, "5"],
    [level, undefined],
    [ratio, "20"],
    [enabled, "true"],
    [boolFlag({ name: "off", group, help: "", default: false }), undefined],
    [label, '"kube-system"'],
    [stringFlag({ name: "empty", group, help: "", default: "" }), undefined],
    [address, "0.0.0.0"],
    [format, '"json"'],
    [period, "15s"],
    [durationFlag({ name: "hours", group, help: "", default: 12 * 3_600_000 }), "12h0m0s"],
    [names, "[*]"],
    [stringListFlag({ name: "none", group, help: "", default: [] }), undefined],
    [ids, "[]"],
    [intListFlag({ name: "some", group, help: "", default: [1, 2] }), "[1,2]"],
  ])("--%s", (flag, helpDefault) => {
    expect(flag.helpDefault).toBe(helpDefault);
  });
});

describe("definitions", () => {
  test("reject a name that is not lower-case words joined by -", () => {
    expect(() => intFlag({ name: "Workers", group, help: "", default: 1 })).toThrow('invalid flag name "Workers"');
    expect(() => intFlag({ name: "--workers", group, help: "", default: 1 })).toThrow("invalid flag name");
  });
  test("reject a shorthand longer than one letter", () => {
    expect(() => intFlag({ name: "workers", shorthand: "wk", group, help: "", default: 1 })).toThrow('invalid shorthand "wk"');
  });
});
