// Waits for a state that arrives asynchronously (a controller's writes, a cache catching up),
// under any test runner: `condition` may return false or throw (a failed assertion) to mean
// "not yet"; the wait ends as soon as it passes, or fails with the last reason once time is up.
import { setTimeout as sleep } from "node:timers/promises";

/** How long and how often `eventually` tries. */
export interface EventuallyOptions {
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number | undefined;
  /** Pause between two tries. Default 100 ms. */
  intervalMs?: number | undefined;
  /** What is waited for, for the error: "timed out after 10000 ms waiting for <message>". */
  message?: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_INTERVAL_MS = 100;

/**
 * Calls `condition` until it returns something other than false without throwing, and resolves with that.
 * A throw means "not yet", as false does (so `expect(…)` works inside). After `timeoutMs` it rejects with
 * "timed out after … waiting for <message>", plus the last throw's message.
 */
export async function eventually<T>(condition: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Exclude<T, false>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await condition();
      if (result !== false) return result as Exclude<T, false>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() >= deadline) throw timedOut(timeoutMs, options.message ?? "the condition", lastError);
    await sleep(intervalMs);
  }
}

function timedOut(timeoutMs: number, message: string, lastError: unknown): Error {
  const base = `timed out after ${timeoutMs} ms waiting for ${message}`;
  if (lastError === undefined) return new Error(base);
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  return new Error(`${base}; last failure: ${reason}`, { cause: lastError });
}
