import { describe, expect, test } from "bun:test";
import { selectControllers, type ControllerIdentity } from "./controller-selection.ts";
import { UsageError } from "./usage-error.ts";

const known: ControllerIdentity[] = [
  { name: "apple-controller", aliases: ["apple"], enabledByDefault: true },
  { name: "banana-controller", aliases: ["banana", "plantain"], enabledByDefault: true },
  { name: "cherry-controller", aliases: [], enabledByDefault: false },
];

describe("selectControllers", () => {
  test.each<[string, string[], string[]]>([
    ["* enables the on-by-default ones", ["*"], ["apple-controller", "banana-controller"]],
    ["*,-a disables a", ["*", "-apple-controller"], ["banana-controller"]],
    ["-a before * also disables a", ["-apple-controller", "*"], ["banana-controller"]],
    ["a name alone enables only it", ["banana-controller"], ["banana-controller"]],
    ["an off-by-default controller needs naming", ["*", "cherry-controller"], ["apple-controller", "banana-controller", "cherry-controller"]],
    ["-a,a: the first explicit match wins", ["-apple-controller", "apple-controller", "*"], ["banana-controller"]],
    ["a,-a: the first explicit match wins", ["apple-controller", "-apple-controller"], ["apple-controller"]],
    ["an alias enables its controller", ["apple"], ["apple-controller"]],
    ["-alias disables its controller", ["*", "-plantain"], ["apple-controller"]],
    ["alias and canonical name are one controller", ["-banana", "banana-controller", "*"], ["apple-controller"]],
    ["output follows registration order", ["cherry-controller", "apple"], ["apple-controller", "cherry-controller"]],
  ])("%s", (_title, requested, enabled) => {
    expect(selectControllers(requested, known)).toEqual(enabled);
  });

  test.each([
    ["bogus", '"bogus" is not in the list of known controllers (known: apple-controller, banana-controller, cherry-controller)'],
    ["-bogus", '"bogus" is not in the list of known controllers'],
    ["-*", '"*" is not in the list of known controllers'],
  ])("unknown %p is a usage error naming it", (item, message) => {
    expect(() => selectControllers(["*", item], known)).toThrow(UsageError);
    expect(() => selectControllers(["*", item], known)).toThrow(message);
  });

  // kube-controller-manager runs such a selection with no controller at all; kube-loom refuses it,
  // since a process that runs nothing yet reports ready is a mistake nobody notices.
  describe("a selection that enables no controller is a usage error", () => {
    test.each<[string, string[], string]>([
      [
        "disabling alone",
        ["-banana"],
        '--controllers=-banana enables no controller: "-x" only disables x; to run every other controller use --controllers=*,-banana',
      ],
      [
        "several disables alone",
        ["-apple", "-banana-controller"],
        '--controllers=-apple,-banana-controller enables no controller: "-x" only disables x; to run every other controller use --controllers=*,-apple,-banana-controller',
      ],
      ["an empty list", [], "--controllers= enables no controller: name the controllers to run, or use --controllers=* for every on-by-default one"],
      [
        "* with every on-by-default controller disabled",
        ["*", "-apple", "-banana"],
        "--controllers=*,-apple,-banana enables no controller (known: apple-controller, banana-controller, cherry-controller; off by default: cherry-controller)",
      ],
      [
        "a name disabled before it is enabled",
        ["-cherry-controller", "cherry-controller"],
        "--controllers=-cherry-controller,cherry-controller enables no controller (known: apple-controller, banana-controller, cherry-controller; off by default: cherry-controller)",
      ],
    ])("%s", (_title, requested, message) => {
      expect(() => selectControllers(requested, known)).toThrow(UsageError);
      expect(() => selectControllers(requested, known)).toThrow(message);
    });

    test("also when * is the default and nothing is on by default", () => {
      const offByDefault = known.map((controller) => ({ ...controller, enabledByDefault: false }));
      expect(() => selectControllers(["*"], offByDefault)).toThrow("--controllers=* enables no controller (known: apple-controller, banana-controller, cherry-controller; off by default: apple-controller, banana-controller, cherry-controller)");
    });
  });

  test("a name claimed by two controllers is a registration bug", () => {
    const clashing = [...known, { name: "apricot-controller", aliases: ["apple"], enabledByDefault: true }];
    expect(() => selectControllers(["*"], clashing)).toThrow('controller name "apple" is used by both apple-controller and apricot-controller');
  });
});
