// What each kube-loom replica holds over a soak: resident memory (VmRSS of /proc/<pid>/status)
// and open sockets (the socket:[…] links of /proc/<pid>/fd), sampled at a fixed pace, with the
// number of objects the soak's own watch caches at the time (what the replicas' caches grow
// with). Summed up per period as the peak of each replica, and judged for a long run:
//   after minute 10, no period's peak RSS above the peak of minutes 5-10 × 1.15 plus 10 KiB per
//   object cached beyond what was cached then, and no period's peak sockets above the peak of
//   minutes 5-10 × 1.15 + 2, sustained: most samples of the run's last 10 minutes over the bound.
//   A few samples over it earlier are spikes (a fault window's burst of requests, a heap not yet
//   collected), counted in the finding but not growth: a leak only rises. Only samples of
//   processes past their first minute count, on both sides: a start (every cache listed at once,
//   the runtime's heap not yet collected) peaks higher than the same process does later, and the
//   faults restart replicas every minute or two.
// Replicas are restarted by the faults, so a period's peak is the largest of the processes
// alive in it; the oldest process's age is shown beside it.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { SoakFleet } from "./soak-fleet.ts";

export interface UsageSample {
  /** ms since sampling started. */
  atMs: number;
  user: string;
  pid: number;
  /** ms since this pid was first seen. */
  ageMs: number;
  rssKiB: number;
  sockets: number;
  cachedObjects: number;
}

/** One period of one replica: its peaks and the oldest process alive in it. */
export interface UsagePeriod {
  user: string;
  fromMs: number;
  toMs: number;
  peakRssKiB: number;
  peakSockets: number;
  processes: number;
  oldestAgeMs: number;
  cachedObjects: number;
}

/** The growth judgement starts here: the first 10 minutes fill caches and warm the runtime. */
export const growthBaselineEndMs = 10 * 60_000;
const growthBaselineStartMs = 5 * 60_000;
/** A process's start is a peak of its own, not growth (see above). */
const startupMs = 60_000;
const rssSlack = 1.15;
/** A generous bound of one cached object's cost: bench/README.md measures a few hundred bytes to 2 KiB per object. */
const cacheBytesPerObject = 10 * 1024;
const socketSlack = { factor: 1.15, plus: 2 };
/** Growth is judged on the samples of the run's last stretch (see above). */
const judgedTailMs = 10 * 60_000;

export class ReplicaUsageSampler {
  readonly samples: UsageSample[] = [];
  readonly #firstSeen = new Map<number, number>();
  readonly #startedAt = performance.now();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly fleet: SoakFleet,
    private readonly cachedObjects: () => number,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #sample(): void {
    const atMs = performance.now() - this.#startedAt;
    const cachedObjects = this.cachedObjects();
    for (const replica of this.fleet.running) {
      const pid = replica.pid;
      if (pid === undefined) continue;
      const usage = processUsage(pid);
      if (!usage) continue;
      const firstSeen = this.#firstSeen.get(pid) ?? atMs;
      this.#firstSeen.set(pid, firstSeen);
      this.samples.push({ atMs, user: replica.user, pid, ageMs: atMs - firstSeen, ...usage, cachedObjects });
    }
  }
}

/** VmRSS and open sockets of `pid`; undefined when it is gone (it exited between two looks). */
export function processUsage(pid: number): { rssKiB: number; sockets: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
    let sockets = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets++;
      } catch {
        // Closed between the listing and the look.
      }
    }
    return Number.isFinite(rssKiB) ? { rssKiB, sockets } : undefined;
  } catch {
    return undefined;
  }
}

/** The samples of each replica in periods of `periodMs`, in time order. */
export function usagePeriods(samples: readonly UsageSample[], periodMs: number): UsagePeriod[] {
  const periods = new Map<string, UsagePeriod>();
  const pids = new Map<string, Set<number>>();
  for (const sample of samples) {
    const index = Math.floor(sample.atMs / periodMs);
    const key = `${sample.user}/${index}`;
    const period = periods.get(key) ?? {
      user: sample.user,
      fromMs: index * periodMs,
      toMs: (index + 1) * periodMs,
      peakRssKiB: 0,
      peakSockets: 0,
      processes: 0,
      oldestAgeMs: 0,
      cachedObjects: 0,
    };
    period.peakRssKiB = Math.max(period.peakRssKiB, sample.rssKiB);
    period.peakSockets = Math.max(period.peakSockets, sample.sockets);
    period.oldestAgeMs = Math.max(period.oldestAgeMs, sample.ageMs);
    period.cachedObjects = Math.max(period.cachedObjects, sample.cachedObjects);
    const seen = pids.get(key) ?? new Set<number>();
    seen.add(sample.pid);
    pids.set(key, seen);
    period.processes = seen.size;
    periods.set(key, period);
  }
  return [...periods.values()].sort((a, b) => a.user.localeCompare(b.user) || a.fromMs - b.fromMs);
}

/** Growth beyond the rule above: per replica and measure, how many samples of the last 10 minutes were over the bound, the first of them, and how many over it in all; none for a run shorter than the baseline. */
export function usageGrowth(samples: readonly UsageSample[]): string[] {
  const findings: string[] = [];
  const endMs = Math.max(...samples.map((sample) => sample.atMs));
  const users = [...new Set(samples.map((sample) => sample.user))];
  for (const user of users) {
    const own = samples.filter((sample) => sample.user === user && sample.ageMs >= startupMs);
    const baseline = own.filter((sample) => sample.atMs >= growthBaselineStartMs && sample.atMs < growthBaselineEndMs);
    if (baseline.length === 0) continue;
    const baseRss = Math.max(...baseline.map((sample) => sample.rssKiB));
    const baseSockets = Math.max(...baseline.map((sample) => sample.sockets));
    const baseObjects = Math.max(...baseline.map((sample) => sample.cachedObjects));
    const later = own.filter((sample) => sample.atMs >= growthBaselineEndMs);
    const tail = later.filter((sample) => sample.atMs >= endMs - judgedTailMs);
    const rssBound = (sample: UsageSample) => baseRss * rssSlack + (Math.max(0, sample.cachedObjects - baseObjects) * cacheBytesPerObject) / 1024;
    const socketBound = baseSockets * socketSlack.factor + socketSlack.plus;
    const at = (sample: UsageSample) => `${(sample.atMs / 60_000).toFixed(1)} min (pid ${sample.pid}, ${(sample.ageMs / 60_000).toFixed(1)} min old)`;
    const judge = (isOver: (sample: UsageSample) => boolean, describe: (sample: UsageSample) => string, baseline: string) => {
      const overInTail = tail.filter(isOver);
      const [first] = overInTail;
      if (!first || overInTail.length * 2 <= tail.length) return;
      const overInAll = later.filter(isOver).length;
      findings.push(
        `${user}: ${overInTail.length} of ${tail.length} samples of the last 10 minutes over the bound, the first at ${at(first)}: ${describe(first)} (minutes 5-10 peaked at ${baseline}); ${overInAll} of ${later.length} later samples over`,
      );
    };
    judge(
      (sample) => sample.rssKiB > rssBound(sample),
      (sample) => `RSS ${mib(sample.rssKiB)} MiB above ${mib(rssBound(sample))} MiB`,
      `${mib(baseRss)} MiB`,
    );
    judge(
      (sample) => sample.sockets > socketBound,
      (sample) => `${sample.sockets} sockets above ${socketBound.toFixed(1)}`,
      `${baseSockets}`,
    );
  }
  return findings;
}

export function mib(kib: number): string {
  return (kib / 1024).toFixed(0);
}
