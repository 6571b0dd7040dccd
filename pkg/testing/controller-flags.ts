// The flags of the controllers a test runs, given as on the command line
// (["--mirror-source=team-a/settings"]) and checked by the flags' own rules.
import type { ControllerDescriptor } from "../manager/controller-descriptor.ts";
import { readCommandLineArguments } from "../options/command-line-arguments.ts";
import type { FlagDefinition } from "../options/flag-definition.ts";
import { FlagValues } from "../options/flag-values.ts";

export function controllerFlagValues(descriptors: readonly ControllerDescriptor[], args: readonly string[]): FlagValues {
  // One definition may be shared by several controllers: each counts once.
  const flags = [...new Set(descriptors.flatMap((descriptor) => descriptor.flags))];
  refuseUnknown(args, flags);
  return new FlagValues(flags, [readCommandLineArguments(args, flags)]);
}

/** Names what the controllers do declare, where the command line's own message would point to --help. */
function refuseUnknown(args: readonly string[], flags: readonly FlagDefinition[]): void {
  const names = new Set(flags.map((flag) => flag.name));
  for (const arg of args) {
    const name = /^--([^=]+)/.exec(arg)?.[1];
    if (name === undefined || names.has(name)) continue;
    const declared = [...names].map((known) => `--${known}`).join(", ");
    throw new Error(`unknown flag --${name}: expected one of the flags the controllers declare (${declared || "they declare none"})`);
  }
}
