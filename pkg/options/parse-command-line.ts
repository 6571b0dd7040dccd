// The entry point for main: argv in, either the options to run with or what to print and the
// exit code. Nothing here prints or exits, so every outcome can be tested directly.
import { readFileSync } from "node:fs";
import { readCommandLineArguments } from "./command-line-arguments.ts";
import { readConfigFile, type ReadTextFile } from "./config-file.ts";
import { checkControllerNames, selectControllers, type ControllerIdentity } from "./controller-selection.ts";
import { commandLineOnlyFlags, configFileFlag, controllersFlag, coreFlags, globalFlags, helpFlag, programFlags, versionFlag } from "./core-flags.ts";
import type { FlagDefinition } from "./flag-definition.ts";
import { FlagValues } from "./flag-values.ts";
import { renderHelp } from "./help-text.ts";
import { readOptions, type Options } from "./options.ts";
import { type Program, resolveProgram } from "./program.ts";
import { UsageError } from "./usage-error.ts";
import { emulatedKubernetesVersion, type ProgramIdentity, runtimeVersion } from "../version.ts";

/** A controller as the command line knows it: its names and its flags. */
export interface KnownController extends ControllerIdentity {
  /** The controller's own flags, shown in --help under their group and readable via `options.values`. */
  flags: readonly FlagDefinition[];
}

export interface ParseContext {
  controllers: readonly KnownController[];
  /** Who is parsing: its name in --help, --version and error lines, its Lease as the flags' default. */
  program: Program;
  /** Reads the --config file; node:fs by default, replaceable in tests. */
  readFile?: ReadTextFile;
}

export type ParseOutcome =
  /** `warnings`: lines for stderr, one per deprecated flag given. */
  | { kind: "run"; options: Options; warnings: readonly string[] }
  | { kind: "exit"; code: 0 | 2; stdout?: string; stderr?: string };

/** `argv` without the runtime and script, i.e. `process.argv.slice(2)`. */
export function parseCommandLine(argv: readonly string[], context: ParseContext): ParseOutcome {
  const program = resolveProgram(context.program);
  try {
    // Before --help, which lists the controllers by name.
    checkControllerNames(context.controllers);
    const controllers = controllersFlag(context.controllers);
    const own = programFlags(program);
    const ownFlags = context.controllers.flatMap((controller) => controller.flags);
    const flags = registeredFlags([controllers, ...coreFlags(own), ...ownFlags, ...globalFlags]);
    const fromCommandLine = readCommandLineArguments(argv, flags);
    const commandLine = new FlagValues(flags, [fromCommandLine]);
    if (commandLine.get(helpFlag)) return { kind: "exit", code: 0, stdout: renderHelp(program, flags) };
    const version = commandLine.get(versionFlag);
    if (version === "raw") return { kind: "exit", code: 0, stdout: rawVersion(program) };
    if (version) return { kind: "exit", code: 0, stdout: `${program.name} ${program.version}\n` };
    const configPath = commandLine.get(configFileFlag);
    const fileSettable = flags.filter((flag) => !commandLineOnlyFlags.has(flag));
    const fromConfigFile = configPath === "" ? new Map<FlagDefinition, unknown>() : readConfigFile(configPath, fileSettable, context.readFile ?? readUtf8);
    const values = new FlagValues(flags, [fromConfigFile, fromCommandLine]);
    const enabledControllers = selectControllers(values.get(controllers), context.controllers);
    const deprecated = flags.filter((flag) => flag.deprecated !== undefined && values.isSet(flag));
    const warnings = deprecated.map((flag) => `${program.name}: --${flag.name} is deprecated: ${flag.deprecated}`);
    return { kind: "run", options: readOptions(values, enabledControllers, own), warnings };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { kind: "exit", code: 2, stderr: `${program.name}: ${error.message}\n` };
  }
}

/** Two flags with one name or shorthand is a bug in kube-loom (a plain Error), not a usage error. */
function registeredFlags(flags: readonly FlagDefinition[]): readonly FlagDefinition[] {
  const names = new Set<string>();
  for (const flag of flags) {
    for (const name of [`--${flag.name}`, ...(flag.shorthand === undefined ? [] : [`-${flag.shorthand}`])]) {
      if (names.has(name)) throw new Error(`flag ${name} is registered twice`);
      names.add(name);
    }
  }
  return flags;
}

/** --version=raw: all there is to know of the build, one "key: value" a line, where kube-controller-manager prints its version.Info. */
function rawVersion(program: ProgramIdentity): string {
  const info = {
    name: program.name,
    version: program.version,
    emulatedKubernetesVersion,
    runtime: runtimeVersion(),
    platform: `${process.platform}/${process.arch}`,
  };
  return Object.entries(info).map(([key, value]) => `${key}: ${value}\n`).join("");
}

function readUtf8(path: string): string {
  return readFileSync(path, "utf8");
}
