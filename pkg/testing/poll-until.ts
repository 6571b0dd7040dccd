// Bounded start-up waits for the processes the control plane starts.
import { setTimeout as sleep } from "node:timers/promises";

const POLL_INTERVAL_MS = 250;

/**
 * Polls `check` (a thrown error counts as "not yet") until it passes; fails as soon as `failure`
 * names one (say, the process exited), or once `deadline` (a performance.now() reading) passes.
 */
export async function pollUntil(
  what: string,
  deadline: number,
  failure: () => string | undefined,
  check: () => Promise<boolean>,
): Promise<void> {
  let lastError = "";
  for (;;) {
    const failed = failure();
    if (failed) throw new Error(`${failed} while waiting for ${what}`);
    try {
      if (await check()) return;
      lastError = "";
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${lastError})` : ""}`);
    await sleep(POLL_INTERVAL_MS);
  }
}
