import { describe, expect, test } from "bun:test";
import { type UsageSample, usageGrowth, usagePeriods } from "./replica-usage.ts";

const minute = 60_000;

function sample(atMinutes: number, rssMiB: number, sockets: number, overrides: Partial<UsageSample> = {}): UsageSample {
  return { atMs: atMinutes * minute, user: "kube-loom-a", pid: 1, ageMs: atMinutes * minute, rssKiB: rssMiB * 1024, sockets, cachedObjects: 100, ...overrides };
}

describe("usageGrowth", () => {
  test("nothing to judge before minute 10, nor within the slack after it", () => {
    expect(usageGrowth([sample(1, 100, 10), sample(6, 200, 40)])).toEqual([]);
    expect(usageGrowth([sample(6, 100, 40), sample(30, 114, 48)])).toEqual([]);
  });

  test("RSS above minutes 5-10 × 1.15 is growth, unless more cached objects explain it", () => {
    expect(usageGrowth([sample(6, 100, 40), sample(30, 120, 40)])).toEqual([
      "kube-loom-a: 1 of 1 samples of the last 10 minutes over the bound, the first at 30.0 min (pid 1, 30.0 min old): RSS 120 MiB above 115 MiB (minutes 5-10 peaked at 100 MiB); 1 of 1 later samples over",
    ]);
    // 1,000 more objects at 10 KiB each explain about 10 MiB more.
    expect(usageGrowth([sample(6, 100, 40), sample(30, 120, 40, { cachedObjects: 1_100 })])).toEqual([]);
  });

  test("a process in its first minute is judged on neither side: its start is a peak, not growth", () => {
    const young = { pid: 2, ageMs: 0.8 * minute };
    expect(usageGrowth([sample(6, 100, 40), sample(6.5, 150, 40, young), sample(30, 120, 40, young)])).toEqual([]);
    expect(usageGrowth([sample(6, 100, 40), sample(6.5, 150, 40, young), sample(30, 120, 40, { pid: 2, ageMs: 1.5 * minute })])).toHaveLength(1);
  });

  test("sockets above minutes 5-10 × 1.15 + 2 are growth", () => {
    expect(usageGrowth([sample(6, 100, 40), sample(25, 100, 48), sample(40, 100, 60)])).toEqual([
      "kube-loom-a: 1 of 1 samples of the last 10 minutes over the bound, the first at 40.0 min (pid 1, 40.0 min old): 60 sockets above 48.0 (minutes 5-10 peaked at 40); 1 of 2 later samples over",
    ]);
  });

  test("growth is sustained: samples over the bound before the last 10 minutes, or a minority within them, are spikes", () => {
    const spikes = [sample(6, 100, 40), sample(20, 130, 60), sample(52, 100, 40), sample(55, 130, 60), sample(58, 100, 40), sample(60, 100, 40)];
    expect(usageGrowth(spikes)).toEqual([]);
    const rising = [sample(6, 100, 40), sample(20, 105, 40), sample(52, 118, 40), sample(55, 120, 40), sample(60, 100, 40)];
    expect(usageGrowth(rising)).toEqual([
      "kube-loom-a: 2 of 3 samples of the last 10 minutes over the bound, the first at 52.0 min (pid 1, 52.0 min old): RSS 118 MiB above 115 MiB (minutes 5-10 peaked at 100 MiB); 2 of 4 later samples over",
    ]);
  });
});

test("usagePeriods: each replica's peaks and processes per period", () => {
  const periods = usagePeriods([sample(0.5, 80, 10), sample(1, 90, 5, { pid: 2, ageMs: 0 }), sample(6, 70, 20, { pid: 2 })], 5 * minute);
  expect(periods.map(({ fromMs, peakRssKiB, peakSockets, processes }) => ({ fromMs, peakRssKiB, peakSockets, processes }))).toEqual([
    { fromMs: 0, peakRssKiB: 90 * 1024, peakSockets: 10, processes: 2 },
    { fromMs: 5 * minute, peakRssKiB: 70 * 1024, peakSockets: 20, processes: 1 },
  ]);
});
