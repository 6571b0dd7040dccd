// The table most benchmarks end with: one row per scenario, the median of kube-controller-manager,
// of kube-loom and of the limit (a plain client doing the same requests at the same QPS, or the
// API server's own answer), and the two ratios that matter: kube-loom / KCM and kube-loom / limit.
import { describeMachine } from "./machine.ts";
import { printTable } from "./print-table.ts";
import { median, ratio } from "./statistics.ts";

export interface Comparison {
  scenario: string;
  /** Samples of each system; lower is better. */
  upstream: number[];
  kubeLoom: number[];
  limit?: number[];
  /** Formats a median, e.g. seconds with one decimal. */
  format?: (value: number) => string;
}

export const seconds = (value: number): string => `${value.toFixed(value < 10 ? 2 : 1)} s`;
export const mebibytes = (value: number): string => `${value.toFixed(0)} MiB`;

export function printComparison(rows: readonly Comparison[], note: string): void {
  const lines = [["scenario", "kube-controller-manager", "kube-loom", "limit", "kube-loom / KCM", "kube-loom / limit"]];
  for (const row of rows) {
    const format = row.format ?? seconds;
    const upstream = median(row.upstream);
    const kubeLoom = median(row.kubeLoom);
    const limit = row.limit ? median(row.limit) : undefined;
    lines.push([
      row.scenario,
      format(upstream),
      format(kubeLoom),
      limit === undefined ? "" : format(limit),
      ratio(kubeLoom, upstream),
      ratio(kubeLoom, limit),
    ]);
  }
  console.log(note);
  console.log(describeMachine());
  printTable(lines);
}
