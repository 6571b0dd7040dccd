import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../pkg/clock/fake-clock.ts";
import { ProviderOutageBackoff } from "./provider-outage-backoff.ts";

function setup() {
  const clock = new FakeClock();
  const recovered: string[][] = [];
  const backoff = new ProviderOutageBackoff({ initialMs: 1_000, maxMs: 8_000, clock, onRecovered: (keys) => recovered.push(keys) });
  return { clock, backoff, recovered };
}

describe("ProviderOutageBackoff", () => {
  test("admits everyone while the provider answers", () => {
    const { backoff } = setup();
    expect(backoff.admit("a")).toEqual({ admitted: true });
    expect(backoff.admit("b")).toEqual({ admitted: true });
    expect(backoff.unavailable).toBe(false);
  });

  test("after a failure one key probes per interval; intervals double up to the cap", async () => {
    const { clock, backoff } = setup();
    expect(backoff.failed("a", "refused")).toBe(1_000);
    expect(backoff.admit("b")).toEqual({ admitted: false, retryAfterMs: 1_000, message: "refused" });
    await clock.advance(1_000);
    expect(backoff.admit("b")).toEqual({ admitted: true });
    // While b probes, others wait a whole interval (they are woken early if the probe succeeds).
    expect(backoff.admit("c")).toMatchObject({ admitted: false, retryAfterMs: 1_000 });
    const intervals = [backoff.failed("b", "refused")];
    for (let probe = 0; probe < 4; probe++) {
      await clock.advance(intervals.at(-1) ?? 0);
      expect(backoff.admit("c")).toEqual({ admitted: true });
      intervals.push(backoff.failed("c", "refused"));
    }
    expect(intervals).toEqual([2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  test("calls already in flight when the outage began do not lengthen it", () => {
    const { backoff } = setup();
    expect(backoff.failed("a", "refused")).toBe(1_000);
    expect(backoff.failed("b", "refused")).toBe(1_000);
    expect(backoff.failed("c", "refused")).toBe(1_000);
    expect(backoff.admit("d")).toMatchObject({ admitted: false, retryAfterMs: 1_000 });
  });

  test("a successful probe ends the outage and wakes every parked key once", async () => {
    const { clock, backoff, recovered } = setup();
    backoff.failed("a", "refused");
    backoff.admit("b");
    backoff.admit("c");
    await clock.advance(1_000);
    expect(backoff.admit("c")).toEqual({ admitted: true });
    backoff.succeeded();
    expect(recovered).toEqual([["a", "b"]]);
    expect(backoff.admit("x")).toEqual({ admitted: true });
    backoff.succeeded();
    expect(recovered).toHaveLength(1);
  });

  test("a probe that ends without an answer lets the next key probe", async () => {
    const { clock, backoff, recovered } = setup();
    backoff.failed("a", "refused");
    await clock.advance(1_000);
    expect(backoff.admit("b")).toEqual({ admitted: true });
    backoff.release("b");
    expect(backoff.admit("c")).toEqual({ admitted: true });
    backoff.forget("a");
    backoff.succeeded();
    expect(recovered).toEqual([]);
  });
});
