// The whole command: parse the command line, run the manager, turn the outcome into an exit
// code. kube-loom's own main calls it, and so does every program built on kube-loom, each with
// its own name and version and its own controllers.
import { isExpectedError } from "../errors/expected-error.ts";
import { createLogger } from "../log/logger.ts";
import { parseCommandLine } from "../options/parse-command-line.ts";
import { type Program, resolveProgram } from "../options/program.ts";
import { UsageError } from "../options/usage-error.ts";
import { applyRuntimeSettings } from "../runtime/runtime-settings.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { Manager } from "./manager.ts";
import { shutdownSignal } from "./shutdown-signal.ts";

/**
 * The whole program: parses `argv` (flags, --config, --controllers), then runs the chosen controllers
 * with leader election, the HTTPS endpoints and the shared informers until SIGTERM or SIGINT. Call it
 * once, from `main`, and exit with what it resolves to:
 * `process.exit(await runCommand(process.argv.slice(2), [...builtinControllers, mine], { name: "my-manager", version: "1.0.0" }))`.
 *
 * A compiled executable first replaces itself with itself under its runtime settings
 * (pkg/runtime/runtime-settings.ts), so call it before anything else is started.
 *
 * Resolves with the exit code: 0 clean stop, --help or --version; 1 runtime failure or lost lease;
 * 2 usage error. Failures are logged (one line for an ExpectedError) and become the code; it throws only
 * for an invalid `program` (a mistake in the calling code, not in how it was invoked).
 * `program` names the executable everywhere it names itself, and its Lease by default: two
 * programs with different names never take turns on one Lease.
 */
export async function runCommand(argv: readonly string[], controllers: readonly ControllerDescriptor[], program: Program): Promise<number> {
  applyRuntimeSettings();
  const outcome = parseCommandLine(argv, { controllers, program });
  if (outcome.kind === "exit") {
    if (outcome.stdout) process.stdout.write(outcome.stdout);
    if (outcome.stderr) process.stderr.write(outcome.stderr);
    return outcome.code;
  }
  const { options } = outcome;
  const { name, version } = resolveProgram(program);
  for (const warning of outcome.warnings) process.stderr.write(`${warning}\n`);
  const logger = createLogger(options.logging);
  logger.info({ version, controllers: options.enabledControllers }, `starting ${name}`);

  const terminated = shutdownSignal(logger);
  try {
    const reason = await new Manager({ name, version }, options, controllers, logger).run(terminated);
    return reason === "terminated" ? 0 : 1;
  } catch (err) {
    if (terminated.aborted) return 0;
    if (!isExpectedError(err)) {
      logger.fatal({ err }, `${name} failed`);
      return 1;
    }
    // An operator's or the cluster's problem, not a bug: one line that says what to do, no stack trace,
    // written once (the log goes to stderr too, so logging it as well would print it twice).
    process.stderr.write(`${name}: ${err.message}\n`);
    // A controller that finds its flags inconsistent while being built is a usage error like a bad flag.
    return err instanceof UsageError ? 2 : 1;
  }
}
