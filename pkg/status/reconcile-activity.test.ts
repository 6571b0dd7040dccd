import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { TerminalError } from "../controller/reconciler.ts";
import { ReconcileActivity } from "./reconcile-activity.ts";

describe("ReconcileActivity", () => {
  test("counts outcomes and takes p50/p99 and the slowest key over the recent samples only", () => {
    const activity = new ReconcileActivity(new FakeClock(), { samples: 4, errors: 5 });
    activity.finished("old", "success", 100);
    activity.finished("wait", "requeue", 0.01);
    for (const [key, seconds] of [["a", 0.1], ["b", 0.2], ["c", 0.3], ["d", 0.4]] as const) activity.finished(key, "success", seconds);
    activity.finished("e", "requeue_after", 0.05);
    const summary = activity.summary();
    expect(summary.outcomes).toEqual({ success: 5, error: 0, requeue: 1, requeueAfter: 1, terminalError: 0 });
    // "old", "wait" and "a" were pushed out of the four-sample ring.
    expect(summary.sampleCount).toBe(4);
    expect(summary.p50Seconds).toBe(0.2);
    expect(summary.p99Seconds).toBe(0.4);
    expect(summary.slowest).toEqual({ key: "d", seconds: 0.4 });
  });

  test("nothing reconciled yet: no quantiles, no slowest key", () => {
    const summary = new ReconcileActivity(new FakeClock()).summary();
    expect(summary).toMatchObject({ p50Seconds: undefined, p99Seconds: undefined, slowest: undefined, sampleCount: 0, ratePerSecond: 0 });
  });

  test("the rate counts the reconciles of the last minute", async () => {
    const clock = new FakeClock();
    const activity = new ReconcileActivity(clock);
    for (let i = 0; i < 30; i++) activity.finished("a", "success", 0.01);
    await clock.advance(30_000);
    for (let i = 0; i < 30; i++) activity.finished("a", "success", 0.01);
    expect(activity.summary().ratePerSecond).toBe(1);
    await clock.advance(31_000);
    expect(activity.summary().ratePerSecond).toBe(0.5);
    // An hour later the per-second slots are stale, not counted again.
    await clock.advance(3_600_000);
    expect(activity.summary().ratePerSecond).toBe(0);
  });

  test("keeps the last errors newest first, with their key, time and whether they are retried", async () => {
    const clock = new FakeClock();
    const activity = new ReconcileActivity(clock, { samples: 10, errors: 2 });
    activity.finished("ns/one", "error", 0.1, new Error("conflict"));
    await clock.advance(1_000);
    activity.finished("ns/two", "terminal_error", 0.1, new TerminalError("invalid spec"));
    await clock.advance(1_000);
    activity.finished("ns/three", "error", 0.1, "a thrown string");
    activity.finished("ns/four", "success", 0.1);
    expect(activity.summary().lastErrors).toEqual([
      { at: clock.now(), key: "ns/three", message: "a thrown string", terminal: false },
      { at: clock.now() - 1_000, key: "ns/two", message: "invalid spec", terminal: true },
    ]);
  });
});
