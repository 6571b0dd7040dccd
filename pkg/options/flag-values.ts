// Parsed flag values, read back with the type of the definition that declared them:
// `values.get(concurrentReplicaSetSyncsFlag)` is a number, `values.get(logFormatFlag)` is "json" | "text".
import type { FlagDefinition } from "./flag-definition.ts";

/** The parsed flag values, read by flag: `values.get(workers)` is typed by the flag's constructor. */
export class FlagValues {
  readonly #values: ReadonlyMap<FlagDefinition, unknown>;
  readonly #given: ReadonlySet<FlagDefinition>;

  /** Every flag starts at its default; each later layer (config file, then command line) overrides earlier ones. */
  constructor(flags: readonly FlagDefinition[], layers: readonly ReadonlyMap<FlagDefinition, unknown>[]) {
    const values = new Map<FlagDefinition, unknown>(flags.map((flag) => [flag, flag.default]));
    const given = new Set<FlagDefinition>();
    for (const layer of layers) {
      for (const [flag, value] of layer) {
        values.set(flag, value);
        given.add(flag);
      }
    }
    this.#values = values;
    this.#given = given;
  }

  /** The flag's value. Throws Error for a flag that was not registered (not in the controller's `flags`). */
  get<T>(flag: FlagDefinition<T>): T {
    if (!this.#values.has(flag)) {
      throw new Error(`flag --${flag.name} was never registered: add it to its controller's flags`);
    }
    // Sound: every value was produced by this same definition's schema (or is its default).
    return this.#values.get(flag) as T;
  }

  /** Whether the command line or the --config file set the flag (to any value, its default included). */
  isSet(flag: FlagDefinition): boolean {
    return this.#given.has(flag);
  }

  /** The same values, limited to `flags`: what one controller may read (any other flag throws). */
  only(flags: readonly FlagDefinition[]): FlagValues {
    const kept = flags.filter((flag) => this.#values.has(flag));
    const given = new Map(kept.filter((flag) => this.#given.has(flag)).map((flag) => [flag, this.#values.get(flag)]));
    return new FlagValues(kept, [given]);
  }

  /** Every registered flag's value as pflag would print it, by flag name: what /flagz shows. */
  texts(): Record<string, string> {
    const texts: Record<string, string> = {};
    for (const [flag, value] of this.#values) texts[flag.name] = flag.text(value);
    return texts;
  }
}
