// The whole command: parse the command line, run the manager, turn the outcome into an exit
// code. Custom binaries that add their own controllers call this with their descriptor list.
import { ClientConfigError } from "../kube/client-config.ts";
import { createLogger } from "../log/logger.ts";
import { parseCommandLine } from "../options/parse-command-line.ts";
import { UsageError } from "../options/usage-error.ts";
import { version } from "../version.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { ApiServerUnavailableError } from "./wait-for-apiserver.ts";
import { Manager } from "./manager.ts";

/** Exit codes: 0 clean stop or --help, 1 runtime failure or lost lease, 2 usage error. */
export async function runCommand(argv: readonly string[], controllers: readonly ControllerDescriptor[]): Promise<number> {
  const outcome = parseCommandLine(argv, { controllers, version });
  if (outcome.kind === "exit") {
    if (outcome.stdout) process.stdout.write(outcome.stdout);
    if (outcome.stderr) process.stderr.write(outcome.stderr);
    return outcome.code;
  }
  const { options } = outcome;
  const logger = createLogger(options.logging);
  logger.info({ version, controllers: options.enabledControllers }, "starting kube-loom");

  const terminate = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      terminate.abort();
    });
  }
  try {
    const reason = await new Manager(options, controllers, logger).run(terminate.signal);
    return reason === "terminated" ? 0 : 1;
  } catch (err) {
    if (terminate.signal.aborted) return 0;
    if (err instanceof UsageError) {
      // A controller found its flags inconsistent while being built: the same one line and exit code as a bad flag.
      logger.error(err.message);
      process.stderr.write(`kube-loom: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ClientConfigError || err instanceof ApiServerUnavailableError) {
      // A setup problem, not a bug: one clear line, no stack trace.
      logger.error(err.message);
      process.stderr.write(`kube-loom: ${err.message}\n`);
      return 1;
    }
    logger.fatal({ err }, "kube-loom failed");
    return 1;
  }
}
