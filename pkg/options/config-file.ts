// --config FILE: a YAML mapping from flag names to values, e.g.
//   kube-api-qps: 50
//   controllers: ["*", "-network"]
//   leader-elect-lease-duration: 30s
// Each value is validated by its flag's own schema, so the file and the command line agree.
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { decodeFlagValue, type FlagDefinition } from "./flag-definition.ts";
import { UsageError } from "./usage-error.ts";
import { firstLineOfError } from "../errors/expected-error.ts";

export type ReadTextFile = (path: string) => string;

// An empty file parses to null, which sets nothing.
const configDocument = z.union([z.null(), z.record(z.string(), z.unknown())]);

/** The values the file sets, keyed by flag; `settable` are the flags a file may set. */
export function readConfigFile(
  path: string,
  settable: readonly FlagDefinition[],
  readFile: ReadTextFile,
): Map<FlagDefinition, unknown> {
  const where = `config file ${path}`;
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new UsageError(`cannot read ${where}: ${firstLineOfError(error)}`);
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new UsageError(`invalid YAML in ${where}: ${firstLineOfError(error)}`);
  }
  const parsed = configDocument.safeParse(document);
  if (!parsed.success) throw new UsageError(`${where} must be a mapping from flag names to values`);
  const byName = new Map(settable.map((flag) => [flag.name, flag]));
  const values = new Map<FlagDefinition, unknown>();
  for (const [key, input] of Object.entries(parsed.data ?? {})) {
    const flag = byName.get(key);
    if (!flag) throw new UsageError(`unknown key ${JSON.stringify(key)} in ${where}: keys are flag names without dashes (see --help)`);
    values.set(flag, decodeFlagValue(flag, input, `${key} in ${where}`));
  }
  return values;
}
