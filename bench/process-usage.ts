// What a running process costs, read from /proc: resident memory and CPU time (user + system).
import { readFileSync } from "node:fs";

/** Resident set size in MiB. */
export function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

/** CPU seconds used so far, user and system, all threads. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / clockTicksPerSecond;
}

/** USER_HZ: 100 on every Linux architecture Bun runs on. */
const clockTicksPerSecond = 100;
