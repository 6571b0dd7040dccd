// SIGTERM or SIGINT stop the manager gracefully. One Ctrl-C can bring both (the terminal sends
// SIGINT to the process group, a wrapper script then sends SIGTERM): one shutdown, one log line.
// Each handler runs once, so a second signal of the same kind ends a shutdown that hangs, as a
// second signal does for kube-controller-manager.
import type { Logger } from "../log/logger.ts";

/** Aborts on the first SIGTERM or SIGINT, logging which one; later signals add nothing to the log. */
export function shutdownSignal(logger: Logger): AbortSignal {
  const terminate = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      if (terminate.signal.aborted) return;
      logger.info({ signal }, "shutting down");
      terminate.abort();
    });
  }
  return terminate.signal;
}
