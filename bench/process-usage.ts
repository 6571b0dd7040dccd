// What a running process costs, read from /proc: resident memory and CPU time (user + system).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

/** Resident set size in MiB. */
export function residentMiB(pid: number): number {
  return residentParts(pid).total;
}

/** The resident set in MiB, and its two parts: anonymous memory (heaps, stacks) and file-backed pages (the executable's code and data). */
export interface ResidentParts {
  total: number;
  anonymous: number;
  fileBacked: number;
}

export function residentParts(pid: number): ResidentParts {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mib = (field: string) => statusField(status, field) / 1024;
  return { total: mib("VmRSS"), anonymous: mib("RssAnon"), fileBacked: mib("RssFile") };
}

/** The highest resident set size in MiB of `pid` (default: this process) since it started, or since resetPeakResident. */
export function peakResidentMiB(pid: number | "self" = "self"): number {
  return statusField(readFileSync(`/proc/${pid}/status`, "utf8"), "VmHWM") / 1024;
}

/**
 * Sets the peak-RSS mark (VmHWM) of `pid` (default: this process) to its current RSS: the peak
 * of what follows, however short, without sampling (the file is writable by the process's own user).
 */
export function resetPeakResident(pid: number | "self" = "self"): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** A kB field of /proc/<pid>/status, in kB (NaN when absent). */
function statusField(status: string, field: string): number {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
}

/** CPU seconds used so far, user and system, all threads. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / clockTicksPerSecond;
}

/**
 * CPU seconds each thread of a Bun process has used so far, by thread id, from the scheduler's
 * nanosecond run times (/proc/<pid>/task/<tid>/schedstat; the stat file's 10 ms ticks are too
 * coarse for an idle minute).
 */
export function threadCpuSeconds(pid: number): Map<string, { kind: ThreadKind; seconds: number }> {
  const threads = new Map<string, { kind: ThreadKind; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      const runNs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      threads.set(tid, { kind: tid === String(pid) ? "javascript" : threadKind(name), seconds: runNs / 1e9 });
    } catch {
      // The thread exited between the listing and the read.
    }
  }
  return threads;
}

/**
 * CPU seconds by kind of thread between two readings of threadCpuSeconds. A thread that exited in
 * between is missing (its time since the first reading is lost); one started since counts whole.
 */
export function threadCpuBetween(
  before: Map<string, { kind: ThreadKind; seconds: number }>,
  after: Map<string, { kind: ThreadKind; seconds: number }>,
): Record<ThreadKind, number> {
  const byKind: Record<ThreadKind, number> = { javascript: 0, httpClient: 0, jit: 0, allocator: 0, other: 0 };
  for (const [tid, { kind, seconds }] of after) byKind[kind] += seconds - (before.get(tid)?.seconds ?? 0);
  return byKind;
}

/** The threads of a Bun process, by what they do. */
export type ThreadKind = "javascript" | "httpClient" | "jit" | "allocator" | "other";

function threadKind(name: string): ThreadKind {
  if (name === "HTTP Client") return "httpClient";
  if (name.startsWith("JIT")) return "jit";
  // mimalloc's background thread, returning freed pages to the kernel.
  if (name === "mi-scavenger") return "allocator";
  return "other";
}

/**
 * Waits until `pids` together use at most one clock tick (5 % of a core) in 200 ms, for at most
 * `maxMs`, so that a measurement does not start while the API server is busy with the last one.
 */
export async function waitForQuiet(pids: readonly number[], maxMs = 10_000): Promise<void> {
  const total = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const deadline = performance.now() + maxMs;
  while (performance.now() < deadline) {
    const before = total();
    await Bun.sleep(200);
    if (total() - before < 1.5 / clockTicksPerSecond) return;
  }
}

/** USER_HZ: 100 on every Linux architecture Bun runs on. */
const clockTicksPerSecond = 100;
