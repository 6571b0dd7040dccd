// Waits for asynchronous machinery (promise chains, async loops) to reach a state, polling on
// real macrotask turns: fast when the state comes quickly, a clear failure when it never does.
import { eventually as untilPasses } from "../../pkg/testing/eventually.ts";

/** Resolves once `condition` holds; rejects after `timeoutMs` of real time. */
export async function eventually(condition: () => boolean, what = "condition", timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Lets pending promise callbacks and macrotasks run, for asserting that something did NOT happen. */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Polls an asynchronous condition (e.g. one that asks the API server) until it holds: kube-loom/testing's eventually. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<void> {
  await untilPasses(condition, { message: what, timeoutMs, intervalMs });
}
