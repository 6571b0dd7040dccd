// Loaded before kube-loom's main module in the executable ring-idle.ts builds: on SIGUSR2 the
// process writes what it holds (RSS and its parts, the JSC heap before and after a full
// collection) to /tmp/kube-loom-heap-<pid>.json, so live data can be told from pages kept.
import { heapStats } from "bun:jsc";
import { readFileSync, writeFileSync } from "node:fs";

/** What one process reported; MiB throughout. */
export interface HeapReport {
  rss: number;
  anonymous: number;
  fileBacked: number;
  /** Live JSC heap right after a full collection. */
  heapLive: number;
  /** Blocks JSC holds for its heap, used or not. */
  heapCapacity: number;
  /** Memory JSC was told of outside its heap (array buffers, external strings). */
  heapExtra: number;
}

export function heapReportPath(pid: number): string {
  return `/tmp/kube-loom-heap-${pid}.json`;
}

function mebibytesIn(rollup: string, field: string): number {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? Number.NaN) / 1024;
}

process.on("SIGUSR2", () => {
  Bun.gc(true);
  const heap = heapStats();
  const rollup = readFileSync("/proc/self/smaps_rollup", "utf8");
  const rss = mebibytesIn(rollup, "Rss");
  const anonymous = mebibytesIn(rollup, "Anonymous");
  const report: HeapReport = {
    rss,
    anonymous,
    fileBacked: rss - anonymous,
    heapLive: heap.heapSize / 2 ** 20,
    heapCapacity: heap.heapCapacity / 2 ** 20,
    heapExtra: heap.extraMemorySize / 2 ** 20,
  };
  writeFileSync(heapReportPath(process.pid), JSON.stringify(report));
});
