// How the controllers stop: run without an election until terminated, and the drain both ways share
// (in-flight reconciles get --controller-shutdown-timeout, then are aborted).
import type { Logger } from "../log/logger.ts";

export type ExitReason = "terminated" | "leadership-lost";

/** Runs the controllers: `stop` ends them gracefully, `abort` at once. */
export type RunControllers = (stop: AbortSignal, abort: AbortSignal) => Promise<void>;

/** Without leader election: run until `terminate`, then let in-flight work finish. */
export async function runUntilTerminated(run: RunControllers, terminate: AbortSignal, timeoutMs: number | undefined, logger: Logger): Promise<ExitReason> {
  const abort = new AbortController();
  const finished = run(terminate, abort.signal);
  await abortedSignal(terminate);
  await drain(finished, abort, timeoutMs, logger);
  return "terminated";
}

/** Waits for in-flight reconciles up to `timeoutMs` (--controller-shutdown-timeout; undefined: as long as they take), then aborts them. */
export async function drain(finished: Promise<void>, abort: AbortController, timeoutMs: number | undefined, logger: Logger): Promise<void> {
  if (timeoutMs === undefined) return finished;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  const outcome = await Promise.race([finished.then(() => "done" as const), timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    logger.warn({ timeoutMs }, "the controllers did not stop within --controller-shutdown-timeout; abandoning their in-flight work");
    abort.abort();
  }
}

export function abortedSignal(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
