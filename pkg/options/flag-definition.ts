// The typed flag model: the core and every controller declare their flags with these constructors,
// and read the parsed value back with `FlagValues.get(flag)`, typed by the constructor used.
// One zod schema per flag validates both a command-line string and a --config YAML value.
import { z } from "zod";
import { formatGoDuration, parseGoDuration } from "./go-duration.ts";
import { UsageError } from "./usage-error.ts";

/** The kinds of flag values; each has its constructor (intFlag, durationFlag, …). */
export type FlagKind = "int" | "float" | "bool" | "string" | "ip" | "enum" | "duration" | "stringList" | "intList";

/** What the author of a flag writes, whatever its kind. */
export interface FlagSpec<T> {
  /** Long name without dashes, e.g. "kube-api-qps"; also its key in the --config file. */
  name: string;
  /** The --help section, e.g. "ReplicaSet controller" (printed as "ReplicaSet controller flags:"). */
  group: string;
  /** One line for --help. */
  help: string;
  /** The value when neither the command line nor --config sets it. */
  default: T;
  /** One letter for `-x`; Go convention keeps these for a few very common flags such as -v. */
  shorthand?: string;
  /**
   * Set on a flag kept only for old command lines: what to use instead. Such a flag still works,
   * is left out of --help (as pflag hides deprecated flags) and earns a warning when given.
   */
  deprecated?: string;
}

/** Inclusive limits, except that `exclusiveMin` makes `min` itself invalid (e.g. "> 0"). */
export interface NumericBounds {
  /** The smallest valid value. */
  min?: number | undefined;
  /** The largest valid value. */
  max?: number | undefined;
  /** `min` itself is invalid. */
  exclusiveMin?: boolean | undefined;
}

/**
 * A declared flag, made by one of the flag constructors (intFlag, … or a flagGroup's). Declare it once, at
 * module level, list it in the descriptor's `flags`, and read its value with `values.get(flag)`.
 */
export interface FlagDefinition<T = unknown> {
  /** Long name without dashes; also the --config key. */
  readonly name: string;
  /** The --help section. */
  readonly group: string;
  /** The --help line. */
  readonly help: string;
  /** The value when nothing sets it. */
  readonly default: T;
  /** The one-letter form, if any. */
  readonly shorthand: string | undefined;
  /** Which constructor made it. */
  readonly kind: FlagKind;
  /** The value's type word in --help, as pflag prints it ("int", "duration", "strings"; none for booleans). */
  readonly typeName: string;
  /** What a valid value looks like, completing "expected …" in error messages. */
  readonly expected: string;
  /** The "(default …)" text in --help; undefined when the default is the type's zero value, as pflag omits it. */
  readonly helpDefault: string | undefined;
  /** See FlagSpec.deprecated. */
  readonly deprecated: string | undefined;
  /** A value as pflag's Value.String() writes it ("10s", "[a,b]", "true"), for /flagz. */
  text(value: T): string;
  /** Accepts a command-line string or a YAML value; outputs the typed value. */
  readonly schema: z.ZodType<T>;
  /** Folds a repeated command-line flag: lists append (like pflag's string slices), others keep the later value. */
  combine(earlier: T, later: T): T;
}

interface KindBehaviour<T> {
  kind: FlagKind;
  typeName: string;
  expected: string;
  helpDefault: string | undefined;
  schema: z.ZodType<T>;
  text: (value: T) => string;
  help?: string;
  combine?: (earlier: T, later: T) => T;
}

const FLAG_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function defineFlag<T>(spec: FlagSpec<T>, behaviour: KindBehaviour<T>): FlagDefinition<T> {
  // A bad name is a bug in kube-loom, not a user mistake, hence a plain Error.
  if (!FLAG_NAME.test(spec.name)) throw new Error(`invalid flag name ${JSON.stringify(spec.name)}: use lower-case words joined by "-"`);
  if (spec.shorthand !== undefined && !/^[a-zA-Z]$/.test(spec.shorthand)) {
    throw new Error(`invalid shorthand ${JSON.stringify(spec.shorthand)} for --${spec.name}: use a single letter`);
  }
  return Object.freeze({
    name: spec.name,
    group: spec.group,
    help: behaviour.help ?? spec.help,
    default: spec.default,
    shorthand: spec.shorthand,
    kind: behaviour.kind,
    typeName: behaviour.typeName,
    expected: behaviour.expected,
    helpDefault: behaviour.helpDefault,
    deprecated: spec.deprecated,
    text: behaviour.text,
    schema: behaviour.schema,
    combine: behaviour.combine ?? ((_earlier: T, later: T) => later),
  });
}

/** Validates a command-line text or config-file value; the error names the value, its source and what was expected. */
export function decodeFlagValue<T>(flag: FlagDefinition<T>, input: unknown, source: string): T {
  const result = flag.schema.safeParse(input);
  if (result.success) return result.data;
  throw new UsageError(`invalid value ${showValue(input)} for ${source}: expected ${flag.expected}`);
}

/**
 * A command-line text or YAML value as JSON writes it, except for what JSON cannot hold: NaN and ±Infinity
 * (YAML's .nan, .inf, 1e400) by name, and a value inside itself (a YAML alias within its own anchor) as <cycle>.
 */
function showValue(input: unknown, enclosing: readonly object[] = []): string {
  if (typeof input === "number") return String(input);
  if (typeof input !== "object" || input === null) return JSON.stringify(input) ?? String(input);
  if (enclosing.includes(input)) return "<cycle>";
  const within = [...enclosing, input];
  if (Array.isArray(input)) return `[${input.map((item: unknown) => showValue(item, within)).join(",")}]`;
  return `{${Object.entries(input).map(([key, value]) => `${JSON.stringify(key)}:${showValue(value, within)}`).join(",")}}`;
}

function bounded(schema: z.ZodNumber, bounds: NumericBounds): z.ZodNumber {
  let limited = schema;
  if (bounds.min !== undefined) limited = bounds.exclusiveMin ? limited.gt(bounds.min) : limited.gte(bounds.min);
  if (bounds.max !== undefined) limited = limited.lte(bounds.max);
  return limited;
}

function describeBounds(bounds: NumericBounds, show: (value: number) => string): string {
  const { min, max, exclusiveMin } = bounds;
  if (min !== undefined && max !== undefined && !exclusiveMin) return ` between ${show(min)} and ${show(max)}`;
  const lower = min === undefined ? "" : ` ${exclusiveMin ? ">" : ">="} ${show(min)}`;
  const upper = max === undefined ? "" : `${lower ? " and" : ""} <= ${show(max)}`;
  return lower + upper;
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function numberFrom(text: RegExp): z.ZodType<number> {
  return z.union([z.number(), z.string().trim().regex(text).transform(Number)]);
}

/** What sets int, float and duration flags apart; bounds, defaults and validation work alike for all three. */
interface NumberNotation {
  kind: "int" | "float" | "duration";
  /** What a valid value is, e.g. "an integer"; the bounds follow it in error messages. */
  noun: string;
  /** Follows the bounds in error messages. */
  example: string;
  /** Writes a number as the user would, in --help and error messages. */
  show: (value: number) => string;
  /** A command-line text or YAML value to a number, not yet bounded. */
  parse: z.ZodType<number>;
  /** The numbers this kind allows at all, before the flag's own bounds. */
  numbers: z.ZodNumber;
  /** What the kind can hold at all; the flag's own bounds can only narrow it. */
  range: NumericBounds;
}

/** The flag's bounds within its kind's range, so that the error message names whichever bound applies. */
function withinRange(bounds: NumericBounds, range: NumericBounds): NumericBounds {
  const rangeMin = range.min !== undefined && (bounds.min === undefined || bounds.min < range.min);
  const rangeMax = range.max !== undefined && (bounds.max === undefined || bounds.max > range.max);
  return {
    min: rangeMin ? range.min : bounds.min,
    exclusiveMin: rangeMin ? false : bounds.exclusiveMin,
    max: rangeMax ? range.max : bounds.max,
  };
}

// The zero value goes without "(default …)", as pflag prints it.
function numberFlag(spec: FlagSpec<number> & NumericBounds, notation: NumberNotation): FlagDefinition<number> {
  const bounds = withinRange(spec, notation.range);
  return defineFlag(spec, {
    kind: notation.kind,
    typeName: notation.kind,
    expected: `${notation.noun}${describeBounds(bounds, notation.show)}${notation.example}`,
    helpDefault: spec.default === 0 ? undefined : notation.show(spec.default),
    schema: notation.parse.pipe(bounded(notation.numbers, bounds)),
    text: notation.show,
  });
}

// pflag's int flags are int32 (kube-controller-manager declares them so): beyond, "value out of range".
const integers: NumberNotation = {
  kind: "int",
  noun: "an integer",
  example: "",
  show: String,
  parse: numberFrom(INTEGER_TEXT),
  numbers: z.number().int(),
  range: { min: -(2 ** 31), max: 2 ** 31 - 1 },
};

/**
 * An integer flag, within `min`/`max` when given and always within the int32 range, as pflag's. Throws Error for a
 * name that is not lower-case words joined by "-", or a shorthand that is not one letter (so do all the flag
 * constructors).
 */
export function intFlag(spec: FlagSpec<number> & NumericBounds): FlagDefinition<number> {
  return numberFlag(spec, integers);
}

const decimals: NumberNotation = { kind: "float", noun: "a number", example: "", show: String, parse: numberFrom(DECIMAL_TEXT), numbers: z.number(), range: {} };

/** A number flag ("0.5", "1e3"), within `min`/`max` when given. */
export function floatFlag(spec: FlagSpec<number> & NumericBounds): FlagDefinition<number> {
  return numberFlag(spec, decimals);
}

// The spellings Go's strconv.ParseBool accepts.
const GO_BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ...["1", "t", "T", "TRUE", "true", "True"].map((word) => [word, true] as const),
  ...["0", "f", "F", "FALSE", "false", "False"].map((word) => [word, false] as const),
]);

/** `--name` alone means true; `--name=false` turns it off (`--name false` does not, as with pflag). */
export function boolFlag(spec: FlagSpec<boolean>): FlagDefinition<boolean> {
  return defineFlag(spec, {
    kind: "bool",
    typeName: "",
    expected: "true or false",
    helpDefault: spec.default ? "true" : undefined,
    text: String,
    schema: z.union([
      z.boolean(),
      z
        .string()
        .refine((word) => GO_BOOLEANS.has(word))
        .transform((word) => GO_BOOLEANS.get(word) === true),
    ]),
  });
}

/** A string flag; any text is valid. */
export function stringFlag(spec: FlagSpec<string>): FlagDefinition<string> {
  return defineFlag(spec, {
    kind: "string",
    typeName: "string",
    expected: "a string",
    helpDefault: spec.default === "" ? undefined : JSON.stringify(spec.default),
    schema: z.string(),
    text: String,
  });
}

/** An IPv4 or IPv6 address, like pflag's IP flags (no host names). */
export function ipFlag(spec: FlagSpec<string>): FlagDefinition<string> {
  return defineFlag(spec, {
    kind: "ip",
    typeName: "ip",
    expected: "an IP address such as 0.0.0.0 or ::",
    helpDefault: spec.default === "" ? undefined : spec.default,
    schema: z.union([z.ipv4(), z.ipv6()]),
    text: String,
  });
}

/** One of a fixed set of strings; the value is typed as the union of the choices. */
export function enumFlag<const Choice extends string>(
  spec: FlagSpec<NoInfer<Choice>> & { choices: readonly [Choice, ...Choice[]] },
): FlagDefinition<Choice> {
  const choices = spec.choices.join(", ");
  return defineFlag<Choice>(spec, {
    kind: "enum",
    typeName: "string",
    expected: `one of: ${choices}`,
    helpDefault: JSON.stringify(spec.default),
    help: `${spec.help} One of: ${choices}.`,
    schema: z.enum(spec.choices),
    text: String,
  });
}

const goDurations: NumberNotation = {
  kind: "duration",
  noun: "a duration",
  example: " written like 15s, 1m30s, 500ms or 2h",
  show: formatGoDuration,
  parse: z.string().transform((text, context) => {
    const ms = parseGoDuration(text.trim());
    if (ms !== undefined) return ms;
    context.issues.push({ code: "custom", message: "not a Go duration", input: text });
    return z.NEVER;
  }),
  numbers: z.number(),
  range: {},
};

/** A Go duration string ("15s", "1m30s", "500ms"); the value is in milliseconds, bounds too. */
export function durationFlag(spec: FlagSpec<number> & NumericBounds): FlagDefinition<number> {
  return numberFlag(spec, goDurations);
}

/**
 * Comma-separated on the command line, a comma-separated string or a YAML list in --config.
 * Items are trimmed and empty ones dropped, so `--controllers=` means an empty list.
 */
export function stringListFlag(spec: FlagSpec<readonly string[]>): FlagDefinition<readonly string[]> {
  return defineFlag(spec, {
    kind: "stringList",
    typeName: "strings",
    expected: "a comma-separated list",
    helpDefault: spec.default.length === 0 ? undefined : bracketed(spec.default),
    schema: z
      .union([z.array(z.string()), z.string().transform((text) => text.split(","))])
      .transform((items) => items.map((item) => item.trim()).filter((item) => item !== "")),
    text: bracketed,
    combine: (earlier, later) => [...earlier, ...later],
  });
}

/**
 * Comma-separated integers on the command line (pflag's int32Slice), a list or such a string in
 * --config. What the numbers may be is for the flag's reader to say: their meaning is its own.
 */
export function intListFlag(spec: FlagSpec<readonly number[]>): FlagDefinition<readonly number[]> {
  return defineFlag(spec, {
    kind: "intList",
    typeName: "int32Slice",
    expected: "a comma-separated list of integers",
    // pflag does not count an empty int32Slice as a zero value: it prints "(default [])".
    helpDefault: bracketed(spec.default),
    schema: z
      .union([z.array(z.unknown()), z.string().transform((text) => text.split(",").filter((item) => item.trim() !== ""))])
      .pipe(z.array(numberFrom(INTEGER_TEXT).pipe(z.number().int()))),
    text: bracketed,
    combine: (earlier, later) => [...earlier, ...later],
  });
}

/** How pflag prints its list flags: "[a,b]", "[]" when empty. */
function bracketed(items: readonly (string | number)[]): string {
  return `[${items.join(",")}]`;
}
