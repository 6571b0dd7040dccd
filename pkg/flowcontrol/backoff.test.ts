import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { ExponentialBackoff } from "./backoff.ts";

describe("ExponentialBackoff", () => {
  test("doubles from 800 ms and caps at 30 s", () => {
    const backoff = new ExponentialBackoff({ clock: new FakeClock(), random: () => 0 });
    const waits = Array.from({ length: 8 }, () => backoff.next());
    expect(waits).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
  });

  test("jitter adds up to the wait itself (factor 1.0)", () => {
    const backoff = new ExponentialBackoff({ clock: new FakeClock(), random: () => 0.5 });
    expect(backoff.next()).toBe(1200);
    expect(backoff.next()).toBe(2400);
  });

  test("starts over after 2 minutes without a failure", async () => {
    const clock = new FakeClock();
    const backoff = new ExponentialBackoff({ clock, random: () => 0 });
    backoff.next();
    backoff.next();
    await clock.advance(120_000);
    expect(backoff.next()).toBe(3200);
    await clock.advance(120_001);
    expect(backoff.next()).toBe(800);
  });

  test("wait sleeps on the clock and rejects on abort", async () => {
    const clock = new FakeClock();
    const backoff = new ExponentialBackoff({ clock, random: () => 0 });
    let done = false;
    const waiting = backoff.wait().then(() => (done = true));
    await clock.advance(799);
    expect(done).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(done).toBe(true);
    const controller = new AbortController();
    const aborted = backoff.wait(controller.signal);
    controller.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
  });
});
