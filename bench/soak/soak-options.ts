// The soak's knobs: how long it runs, how hard the workload and the chaos push, and how long
// the system gets to settle. `bun bench/soak.ts` takes the long defaults; the test takes the
// short variant.
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

/** Two replicas under leader election (one acts), or a shard ring of three to begin with, all acting. */
export type SoakMode = "leader-election" | "sharded";

/** The pace and length of the fault proxy's windows (bench/soak/proxy-chaos.ts). */
export interface ProxyChaosOptions {
  /** Mean pause between two windows (jittered ±50 %). */
  meanGapMs: number;
  /** How long a window of answer faults, watch cuts or garbage lasts. */
  windowMs: number;
  /** How long a stall holds a watch: a window of its own length. */
  watchStallMs: { min: number; max: number };
}

export interface SoakOptions {
  mode: SoakMode;
  /** Workload and faults run this long; then the system gets `convergenceTimeoutMs` to settle. */
  durationMs: number;
  seed: number;
  /** Mean pace of the workload driver (one operation at a time). */
  operationsPerSecond: number;
  /** Mean time between two faults (each jittered by ±50%). */
  meanFaultIntervalMs: number;
  replicaSets: number;
  maxReplicas: number;
  /** Owner trees and standalone Networks alive at once, at most. */
  maxTrees: number;
  maxNetworks: number;
  convergenceTimeoutMs: number;
  /** How long a Pod overshoot may last before it counts as a violation. */
  excessWindowMs: number;
  /** kube-apiserver's watch cache; off by default, so an etcd compaction reaches informers as 410 Gone. */
  watchCache: boolean;
  /** Adds the freeze fault: SIGSTOP the leader past its lease, then SIGCONT. */
  freeze: boolean;
  /** The fault proxy's windows: their pace and length, and how long a stalled watch is held. */
  proxyFaults: ProxyChaosOptions;
  /** How often each replica's RSS and open sockets are read. */
  usageSampleMs: number;
  /** Where the audit log and every replica's log are kept. */
  logDir: string;
}

/** Short lease timings (kube-loom's defaults are 15 s / 10 s / 2 s), so failovers fit a short run. */
export const leaseTimings = { leaseDurationMs: 8_000, renewDeadlineMs: 6_000, retryPeriodMs: 2_000 } as const;

const repoRoot = resolve(import.meta.dir, "../..");

function defaultLogDir(seed: number): string {
  const stamp = new Date().toISOString().replaceAll(":", "").replace(/\.\d+Z$/, "Z");
  return join(repoRoot, ".cache", "soak", `${stamp}-seed-${seed}`);
}

export function soakOptions(overrides: Partial<SoakOptions> = {}): SoakOptions {
  const seed = overrides.seed ?? Math.floor(Math.random() * 2 ** 31);
  return {
    mode: "leader-election",
    durationMs: 10 * 60_000,
    operationsPerSecond: 3,
    meanFaultIntervalMs: 15_000,
    replicaSets: 4,
    maxReplicas: 8,
    maxTrees: 10,
    maxNetworks: 10,
    convergenceTimeoutMs: 180_000,
    excessWindowMs: 30_000,
    watchCache: false,
    freeze: false,
    proxyFaults: { meanGapMs: 15_000, windowMs: 20_000, watchStallMs: { min: 60_000, max: 90_000 } },
    usageSampleMs: 10_000,
    logDir: defaultLogDir(seed),
    ...overrides,
    seed,
  };
}

/**
 * The CI variant: 60 s of workload and faults (each kind about once) with fewer objects, then at
 * most 90 s to settle. The fault proxy's windows are shorter in proportion (stalls of 6-9 s
 * instead of 60-90 s), so its seven kinds fit the minute too.
 */
export function shortSoakOptions(overrides: Partial<SoakOptions> = {}): SoakOptions {
  return soakOptions({
    durationMs: 60_000,
    operationsPerSecond: 1.5,
    meanFaultIntervalMs: 6_000,
    replicaSets: 2,
    maxReplicas: 5,
    maxTrees: 4,
    maxNetworks: 4,
    convergenceTimeoutMs: 90_000,
    proxyFaults: { meanGapMs: 2_000, windowMs: 3_000, watchStallMs: { min: 6_000, max: 9_000 } },
    usageSampleMs: 2_000,
    ...overrides,
  });
}

export const soakUsage =
  "usage: bun bench/soak.ts [--sharded] [--minutes 10] [--seed N] [--ops-per-second 3] [--fault-interval-seconds 15] [--watch-cache] [--freeze] [--log-dir DIR]";

/** Parses the command line; a bad value throws an Error with a one-line message. */
export function parseSoakArgs(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      sharded: { type: "boolean" },
      minutes: { type: "string" },
      seed: { type: "string" },
      "ops-per-second": { type: "string" },
      "fault-interval-seconds": { type: "string" },
      "watch-cache": { type: "boolean" },
      freeze: { type: "boolean" },
      "log-dir": { type: "string" },
    },
  });
  const overrides: Partial<SoakOptions> = {};
  if (values.sharded) overrides.mode = "sharded";
  if (values.minutes !== undefined) overrides.durationMs = positiveNumber("--minutes", values.minutes) * 60_000;
  if (values.seed !== undefined) {
    const seed = Number(values.seed);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, not "${values.seed}"`);
    overrides.seed = seed;
  }
  if (values["ops-per-second"] !== undefined) overrides.operationsPerSecond = positiveNumber("--ops-per-second", values["ops-per-second"]);
  if (values["fault-interval-seconds"] !== undefined) {
    overrides.meanFaultIntervalMs = positiveNumber("--fault-interval-seconds", values["fault-interval-seconds"]) * 1000;
  }
  if (values["watch-cache"]) overrides.watchCache = true;
  if (values.freeze) overrides.freeze = true;
  if (values["log-dir"] !== undefined) overrides.logDir = resolve(values["log-dir"]);
  return soakOptions(overrides);
}

function positiveNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag} must be a positive number, not "${text}"`);
  return value;
}
