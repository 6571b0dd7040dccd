// Flags declared by --help section. Every flag belongs to one group, and a file declares most
// of its flags in the same few groups, so the group is named once, by flagGroup(...), and each
// declaration says only what differs: name, default and help, plus a bound or shorthand where
// there is one. The constructors of flag-definition.ts stay the primitives these wrap.
import {
  boolFlag,
  durationFlag,
  enumFlag,
  type FlagDefinition,
  type FlagSpec,
  floatFlag,
  intFlag,
  intListFlag,
  ipFlag,
  type NumericBounds,
  stringFlag,
  stringListFlag,
} from "./flag-definition.ts";

/** What a flag of a group may add to its name, default and help. */
export interface FlagOptions {
  /** One letter for `-x`, see FlagSpec.shorthand. */
  shorthand?: string | undefined;
  /** What to use instead of a flag kept for old command lines, see FlagSpec.deprecated. */
  deprecated?: string | undefined;
}

/** FlagOptions plus the bounds of a numeric flag. */
export type NumericFlagOptions = NumericBounds & FlagOptions;

/** A flag constructor of one group: name, default and help, in that order. */
export type GroupFlag<T, Options extends FlagOptions = FlagOptions> = (name: string, defaultValue: T, help: string, options?: Options) => FlagDefinition<T>;

/**
 * The flag constructors of one --help section:
 * `const flags = flagGroup("Annotation scaler"); const workers = flags.int("annotation-scaler-workers", 2, "Workers.", { min: 1 });`
 */
export interface FlagGroup {
  /** The --help section, e.g. "Leader election". */
  readonly name: string;
  /** An integer flag (see intFlag). */
  readonly int: GroupFlag<number, NumericFlagOptions>;
  /** A number flag (see floatFlag). */
  readonly float: GroupFlag<number, NumericFlagOptions>;
  /** The default and the bounds are in milliseconds, as the value is. */
  readonly duration: GroupFlag<number, NumericFlagOptions>;
  /** A boolean flag (see boolFlag). */
  readonly bool: GroupFlag<boolean>;
  /** A string flag. */
  readonly string: GroupFlag<string>;
  /** An IPv4 or IPv6 address. */
  readonly ip: GroupFlag<string>;
  /** A comma-separated list (see stringListFlag). */
  readonly stringList: GroupFlag<readonly string[]>;
  /** A comma-separated list of integers. */
  readonly intList: GroupFlag<readonly number[]>;
  /** One of `choices`, the first being the default; the value is typed as their union. */
  enum<const Choice extends string>(name: string, choices: readonly [Choice, ...Choice[]], help: string, options?: FlagOptions): FlagDefinition<Choice>;
}

/** The constructors of the flags in the --help section `group`, e.g. "ReplicaSet controller". */
export function flagGroup(group: string): FlagGroup {
  // One binder serves every primitive: those without bounds ignore them, and FlagGroup's types
  // offer bounds only where they mean something.
  const bind =
    <T>(define: (spec: FlagSpec<T> & NumericFlagOptions) => FlagDefinition<T>): GroupFlag<T, NumericFlagOptions> =>
    (name, defaultValue, help, options) =>
      define({ ...options, name, group, default: defaultValue, help });
  return {
    name: group,
    int: bind(intFlag),
    float: bind(floatFlag),
    duration: bind(durationFlag),
    bool: bind(boolFlag),
    string: bind(stringFlag),
    ip: bind(ipFlag),
    stringList: bind(stringListFlag),
    intList: bind(intListFlag),
    enum: (name, choices, help, options) => enumFlag({ ...options, name, group, choices, default: choices[0], help }),
  };
}
