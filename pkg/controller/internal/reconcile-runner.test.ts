import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../clock/fake-clock.ts";
import { Writable } from "node:stream";
import { createLogger, type Logger, silentLogger } from "../../log/logger.ts";
import { defaultControllerRateLimiter } from "../../workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../../workqueue/rate-limiting-queue.ts";
import type { ReconcileObserver, ReconcileOutcome } from "../reconcile-observer.ts";
import { ReconcileRunner } from "./reconcile-runner.ts";
import { TerminalError, type ReconcileResult } from "../reconciler.ts";

function harness(reconcile: (key: string) => Promise<ReconcileResult>, workers = 1, logger: Logger = silentLogger) {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(clock), { clock });
  const outcomes: ReconcileOutcome[] = [];
  const observed: { loop: string; key: unknown; seconds: number }[] = [];
  let panics = 0;
  const metrics: ReconcileObserver = {
    finished: (loop, key, outcome, seconds) => {
      outcomes.push(outcome);
      observed.push({ loop, key, seconds });
    },
    panicked: () => void panics++,
    setActiveWorkers: () => undefined,
    setMaxConcurrentReconciles: () => undefined,
  };
  const calls: string[] = [];
  const runner = new ReconcileRunner<string>({
    name: "test",
    queue,
    workers,
    logger,
    observer: metrics,
    clock,
    wedgedAfterMs: 60_000,
    reconciler: {
      reconcile: (key) => {
        calls.push(key);
        return reconcile(key);
      },
    },
  });
  const stop = new AbortController();
  const finished = runner.run(stop.signal);
  return { clock, queue, runner, outcomes, observed, calls, stop, finished, panics: () => panics };
}

async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("ReconcileRunner: controller-runtime's reconcile contract", () => {
  test("success forgets the key and does not requeue it", async () => {
    const h = harness(async () => undefined);
    h.queue.add("a");
    await turns();
    expect(h.calls).toEqual(["a"]);
    expect(h.outcomes).toEqual(["success"]);
    expect(h.queue.numRequeues("a")).toBe(0);
    await h.clock.advance(10_000);
    expect(h.calls).toEqual(["a"]);
    h.stop.abort();
    await h.finished;
  });

  test("requeueAfter runs the key again after that delay", async () => {
    const h = harness(async () => ({ requeueAfterMs: 5_000 }));
    h.queue.add("a");
    await turns();
    await h.clock.advance(4_999);
    expect(h.calls).toEqual(["a"]);
    await h.clock.advance(1);
    await turns();
    expect(h.calls).toEqual(["a", "a"]);
    expect(h.outcomes.slice(0, 2)).toEqual(["requeue_after", "requeue_after"]);
    h.stop.abort();
    await h.finished;
  });

  test("an error is retried with exponential backoff; success then resets the count", async () => {
    let failures = 2;
    const h = harness(async () => {
      if (failures-- > 0) throw new Error("conflict");
    });
    h.queue.add("a");
    await turns();
    expect(h.queue.numRequeues("a")).toBe(1);
    await h.clock.advance(5);
    await turns();
    expect(h.queue.numRequeues("a")).toBe(2);
    await h.clock.advance(10);
    await turns();
    expect(h.calls).toEqual(["a", "a", "a"]);
    expect(h.outcomes).toEqual(["error", "error", "success"]);
    expect(h.queue.numRequeues("a")).toBe(0);
    h.stop.abort();
    await h.finished;
  });

  test("a requeue waits with the same backoff as an error, but is counted as a requeue, not an error", async () => {
    let waits = 2;
    const h = harness(async () => (waits-- > 0 ? { requeue: true } : undefined));
    h.queue.add("a");
    await turns();
    expect(h.queue.numRequeues("a")).toBe(1);
    await h.clock.advance(5);
    await turns();
    expect(h.queue.numRequeues("a")).toBe(2);
    await h.clock.advance(10);
    await turns();
    expect(h.outcomes).toEqual(["requeue", "requeue", "success"]);
    expect(h.queue.numRequeues("a")).toBe(0);
    h.stop.abort();
    await h.finished;
  });

  // Thrown as it is, or as the cause of another error (controller-runtime's errors.Is finds it wrapped).
  for (const [how, thrown] of [
    ["a TerminalError", () => new TerminalError("spec.cidr is not a CIDR")],
    ["a TerminalError given as the cause of what is thrown", () => new Error("validating the Network", { cause: new TerminalError("spec.cidr is not a CIDR") })],
  ] as const) {
    test(`${how} is counted but not retried`, async () => {
      const h = harness(async () => {
        throw thrown();
      });
      h.queue.add("a");
      await turns();
      await h.clock.advance(60_000);
      expect(h.calls).toEqual(["a"]);
      expect(h.outcomes).toEqual(["terminal_error"]);
      h.stop.abort();
      await h.finished;
    });
  }

  test("a thrown value that is no Error is named in the log line, undefined included", async () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const h = harness(async () => {
      throw undefined;
    }, 1, createLogger({ format: "json", verbosity: 0, destination }));
    h.queue.add("a");
    await turns();
    const line = JSON.parse(chunks.join("").split("\n")[0] ?? "{}") as { msg?: string; err?: unknown };
    expect(line).toMatchObject({ msg: "reconcile threw unexpectedly; retrying with backoff", err: "undefined" });
    h.stop.abort();
    await h.finished;
  });

  test("an unexpected exception (a bug) is caught, counted as a panic and retried", async () => {
    const h = harness(async (key) => {
      (undefined as unknown as { x: number }).x = key.length;
    });
    h.queue.add("a");
    await turns();
    expect(h.panics()).toBe(1);
    expect(h.outcomes).toEqual(["error"]);
    await h.clock.advance(5);
    await turns();
    expect(h.calls).toEqual(["a", "a"]);
    h.stop.abort();
    await h.finished;
  });

  test("with many workers one key is never reconciled twice at once", async () => {
    let running = 0;
    let maxRunning = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = harness(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await gate;
      running--;
    }, 5);
    h.queue.add("a");
    await turns();
    h.queue.add("a");
    h.queue.add("a");
    await turns();
    expect(maxRunning).toBe(1);
    release();
    await turns();
    expect(h.calls).toEqual(["a", "a"]);
    expect(maxRunning).toBe(1);
    h.stop.abort();
    await h.finished;
  });

  test("stop: in-flight work finishes, queued keys are left, run() resolves", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = harness(async (key) => {
      if (key === "slow") await gate;
    });
    h.queue.add("slow");
    await turns();
    h.queue.add("queued");
    h.stop.abort();
    let resolved = false;
    void h.finished.then(() => (resolved = true));
    await turns();
    expect(resolved).toBe(false);
    release();
    await h.finished;
    expect(h.calls).toEqual(["slow"]);
  });

  test("the health check fails while a reconcile is wedged", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = harness(() => gate);
    const check = h.runner.healthCheck();
    h.queue.add("stuck");
    await turns();
    expect(() => check.check()).not.toThrow();
    await h.clock.advance(61_000);
    expect(() => check.check()).toThrow("reconcile of stuck running for 61s");
    release();
    await turns();
    expect(() => check.check()).not.toThrow();
    h.stop.abort();
    await h.finished;
  });

  test("status: keys in the workers' hands with how long they have run, keys waiting as depth; the observer hears of the finished ones", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = harness(() => gate);
    expect(h.runner.status()).toEqual({ name: "test", queue: "", state: "running", workers: 1, depth: 0, inFlight: [] });
    h.queue.add("slow");
    h.queue.add("next");
    await turns();
    await h.clock.advance(3_000);
    expect(h.runner.status()).toMatchObject({ depth: 1, inFlight: [{ key: "slow", seconds: 3 }] });
    release();
    await turns();
    expect(h.runner.status()).toMatchObject({ depth: 0, inFlight: [] });
    expect(h.observed).toEqual([
      { loop: "test", key: "slow", seconds: 3 },
      { loop: "test", key: "next", seconds: 0 },
    ]);
    h.stop.abort();
    await h.finished;
    expect(h.runner.status().state).toBe("stopped");
  });
});
