import { describe, expect, test } from "bun:test";
import type { ControllerDescriptor } from "../manager/controller-descriptor.ts";
import { flagGroup } from "../options/flag-group.ts";
import { controllerFlagValues } from "./controller-flags.ts";

const group = flagGroup("Example controller");
const source = group.string("mirror-source", "default/settings", "The ConfigMap to copy.");
const workers = group.int("mirror-workers", 2, "Workers.", { min: 1 });
const descriptor = (name: string, flags: ControllerDescriptor["flags"]): ControllerDescriptor => ({ name, aliases: [], enabledByDefault: true, flags, create: async () => undefined });

describe("controllerFlagValues", () => {
  test("values given as on the command line; the rest keep their defaults", () => {
    const values = controllerFlagValues([descriptor("mirror", [source, workers])], ["--mirror-source=team-a/shared"]);
    expect(values.get(source)).toBe("team-a/shared");
    expect(values.get(workers)).toBe(2);
  });

  test("a definition shared by two controllers counts once", () => {
    const values = controllerFlagValues([descriptor("a", [source]), descriptor("b", [source])], ["--mirror-source", "x/y"]);
    expect(values.get(source)).toBe("x/y");
  });

  test("an unknown flag names the ones declared; a bad value says what is expected", () => {
    expect(() => controllerFlagValues([descriptor("mirror", [source, workers])], ["--mirror-sorce=a/b"])).toThrow(
      "unknown flag --mirror-sorce: expected one of the flags the controllers declare (--mirror-source, --mirror-workers)",
    );
    expect(() => controllerFlagValues([descriptor("none", [])], ["--x"])).toThrow("unknown flag --x: expected one of the flags the controllers declare (they declare none)");
    expect(() => controllerFlagValues([descriptor("mirror", [workers])], ["--mirror-workers=0"])).toThrow("--mirror-workers");
  });
});
