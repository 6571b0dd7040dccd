import { describe, expect, test } from "bun:test";
import { silentLogger } from "../log/logger.ts";
import { drain } from "./shutdown.ts";

/** Controllers whose in-flight work ends `workMs` after the stop, or when aborted. */
function stoppingControllers(workMs: number) {
  const abort = new AbortController();
  const finished = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, workMs);
    abort.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { abort, finished };
}

describe("drain (--controller-shutdown-timeout)", () => {
  test("work that outlasts the timeout is abandoned when it expires", async () => {
    const { abort, finished } = stoppingControllers(5_000);
    const started = performance.now();
    await drain(finished, abort, 50, silentLogger);
    expect(abort.signal.aborted).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("work that ends in time is not aborted", async () => {
    const { abort, finished } = stoppingControllers(10);
    await drain(finished, abort, 5_000, silentLogger);
    expect(abort.signal.aborted).toBe(false);
  });

  test("no limit (0 on the command line, as kube-controller-manager reads it): waits as long as the work takes", async () => {
    const { abort, finished } = stoppingControllers(200);
    const started = performance.now();
    await drain(finished, abort, undefined, silentLogger);
    expect(abort.signal.aborted).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});
