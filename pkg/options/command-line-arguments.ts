// Reads argv with node:util parseArgs, following pflag's conventions: `--flag=value` and
// `--flag value`, booleans as `--flag` or `--flag=false`, `-v 3`, `-v3` and `-v=3`.
// parseArgs runs non-strict and the strict checks happen here, because strict mode refuses
// `--controllers -foo` (a value starting with "-", which pflag accepts) and its error texts
// differ between Bun, Deno and Node; here every error names the flag as the user typed it.
import { parseArgs } from "node:util";
import { decodeFlagValue, type FlagDefinition } from "./flag-definition.ts";
import { UsageError } from "./usage-error.ts";

type ParseArgsOptions = NonNullable<Parameters<typeof parseArgs>[0]>["options"];
type Token = NonNullable<ReturnType<typeof parseArgs>["tokens"]>[number];
type OptionToken = Extract<Token, { kind: "option" }>;

/** The values given on the command line, keyed by flag. */
export function readCommandLineArguments(args: readonly string[], flags: readonly FlagDefinition[]): Map<FlagDefinition, unknown> {
  const { tokens } = parseArgs({
    args: [...args],
    options: parseArgsOptions(flags),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const byName = new Map(flags.map((flag) => [flag.name, flag]));
  const values = new Map<FlagDefinition, unknown>();
  let previous: Token | undefined;
  for (const token of tokens) {
    if (token.kind === "positional") {
      // kube-controller-manager ignores empty arguments too (scripts expanding an empty variable).
      if (token.value !== "") throw unexpectedArgument(token.value, previous);
    } else if (token.kind === "option") {
      const flag = byName.get(token.name);
      if (!flag) throw new UsageError(`unknown flag ${spelling(token, args)} (see --help)`);
      const value = decodeFlagValue(flag, textValue(token, flag), token.rawName);
      values.set(flag, values.has(flag) ? flag.combine(values.get(flag), value) : value);
    }
    previous = token;
  }
  return values;
}

function parseArgsOptions(flags: readonly FlagDefinition[]): ParseArgsOptions {
  const options: ParseArgsOptions = {};
  for (const flag of flags) {
    options[flag.name] = {
      type: flag.kind === "bool" ? "boolean" : "string",
      ...(flag.shorthand === undefined ? {} : { short: flag.shorthand }),
    };
  }
  return options;
}

function textValue(token: OptionToken, flag: FlagDefinition): string {
  if (token.value === undefined) {
    if (flag.kind === "bool") return "true";
    throw new UsageError(`missing value for ${token.rawName}: expected ${flag.expected}`);
  }
  // pflag reads `-v=3` as 3; parseArgs hands the "=" over with the value.
  const isShorthand = !token.rawName.startsWith("--");
  return isShorthand && token.inlineValue && token.value.startsWith("=") ? token.value.slice(1) : token.value;
}

/** `--foo` as typed; for a short option, the whole argument up to "=" (so `-leader-elect`, not `-l`). */
function spelling(token: OptionToken, args: readonly string[]): string {
  if (token.rawName.startsWith("--")) return token.rawName;
  return args[token.index]?.split("=")[0] ?? token.rawName;
}

function unexpectedArgument(argument: string, previous: Token | undefined): UsageError {
  const followsBareBoolean = previous?.kind === "option" && previous.value === undefined;
  if (followsBareBoolean) {
    return new UsageError(
      `unexpected argument ${JSON.stringify(argument)} after ${previous.rawName}: a boolean flag takes its value after "=", as in ${previous.rawName}=${argument}`,
    );
  }
  return new UsageError(`unexpected argument ${JSON.stringify(argument)}: only flags are accepted (see --help)`);
}
