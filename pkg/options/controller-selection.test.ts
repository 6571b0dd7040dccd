import { describe, expect, test } from "bun:test";
import { checkControllerNames, selectControllers, type ControllerIdentity } from "./controller-selection.ts";
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

  test("a name two controllers answer to is refused, as by checkControllerNames", () => {
    const clashing = [...known, { name: "apricot-controller", aliases: ["apple"], enabledByDefault: true }];
    expect(() => selectControllers(["*"], clashing)).toThrow(new UsageError('two controllers answer to "apple": it is an alias of apple-controller and an alias of apricot-controller'));
  });
});

describe("checkControllerNames", () => {
  const named = (name: string, aliases: string[] = []): ControllerIdentity => ({ name, aliases, enabledByDefault: true });
  const twice = named("twice");

  test("distinct names and aliases pass", () => {
    expect(() => checkControllerNames(known)).not.toThrow();
  });

  test("a controller listing one of its names twice still means one controller", () => {
    expect(() => checkControllerNames([named("apple", ["apple", "pome", "pome"])])).not.toThrow();
  });

  test.each<[string, ControllerIdentity[], string]>([
    ["two of one name: their places in the list", [named("dup"), named("other"), named("dup")], 'two controllers are named "dup" (entries 1 and 3 of the controller list)'],
    ["one controller given twice", [twice, twice], 'two controllers are named "twice" (entries 1 and 2 of the controller list)'],
    ["an alias that is another's name", [named("plum"), named("prune", ["plum"])], 'two controllers answer to "plum": it is the name of plum and an alias of prune'],
    ["a name that is another's alias", [named("prune", ["plum"]), named("plum")], 'two controllers answer to "plum": it is an alias of prune and the name of plum'],
  ])("%s is a usage error naming it", (_title, controllers, message) => {
    expect(() => checkControllerNames(controllers)).toThrow(UsageError);
    expect(() => checkControllerNames(controllers)).toThrow(new UsageError(message));
  });
});
