// The soak's result as tables: what was done to the system, what it had to withstand, what
// went wrong, and the figures (Pod excess, convergence, leadership), then the evidence.
import { printTable } from "../print-table.ts";
import type { SoakResult } from "./run-soak.ts";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function printSoakReport(result: SoakResult): void {
  const { tally, podExcess, convergence, options } = result;
  const counts: string[][] = [["kind", "type", "count"]];
  for (const [type, count] of sorted(tally.faults)) counts.push(["fault", type, String(count)]);
  for (const [type, count] of sorted(tally.skippedFaults)) counts.push(["fault skipped", type, String(count)]);
  for (const [type, { ok, failed }] of sorted(tally.operations)) counts.push(["operation", type, failed ? `${ok} (+${failed} failed)` : String(ok)]);
  for (const [cause, count] of sorted(result.replicaExits)) counts.push(["replica exit", cause, String(count)]);
  for (const [type, count] of sorted(tally.allowed)) counts.push(["allowed race", type, String(count)]);
  for (const [type, count] of sorted(tally.violationCounts)) counts.push(["violation", type, String(count)]);
  counts.push(["violation", "total", String(tally.violationTotal)]);
  printTable(counts);
  console.log("");

  const converged =
    convergence.convergedAfterMs === undefined
      ? `not within ${seconds(options.convergenceTimeoutMs)}`
      : `${seconds(convergence.convergedAfterMs)} after the workload stopped, ${seconds(convergence.convergedAfterMs + result.lastFaultToWorkloadEndMs)} after the last fault`;
  printTable([
    ["figure", "value"],
    ["mode / seed / duration", `${options.mode} / ${options.seed} / ${Number((options.durationMs / 60_000).toFixed(2))} min`],
    ["Pod overshoots (creations beyond spec.replicas)", String(podExcess.overshoots)],
    ["max Pod excess / its duration", `${podExcess.maxExcess} / ${seconds(podExcess.maxExcessDurationMs)}`],
    ["longest overshoot (violation above)", `${seconds(podExcess.longestOvershootMs)} (${seconds(options.excessWindowMs)})`],
    ["creations in flight across a scale-down (allowed)", String(podExcess.inFlightCreations)],
    ["longest scale-down lag", seconds(podExcess.longestScaleDownLagMs)],
    ["convergence", converged],
    [`replica writes checked against ${result.ownership.checkedAgainst}`, String(result.ownership.writesChecked)],
    [result.ownership.changesLabel, String(result.ownership.changes)],
    ["dependent deletions checked (undecidable)", `${result.ownerDeletions.checked} (${result.ownerDeletions.unverifiable})`],
    ["410 relists: kube-loom replicas / soak watch", `${result.relists.replicas} / ${result.relists.observer}`],
    ["watch changes out of revision order", String(result.lateChanges)],
    ["logs", options.logDir],
  ]);
  const failures = sorted(tally.operations).filter(([, counts]) => counts.lastError !== undefined);
  if (failures.length > 0) {
    console.log("\nlast error of each failed operation type (faults make some fail):");
    for (const [type, { lastError }] of failures) console.log(`  ${type}: ${lastError}`);
  }
  if (tally.violations.length > 0) {
    console.log("\nviolations (first 20 of each type):");
    for (const violation of tally.violations) console.log(`  ${violation.atSeconds.toFixed(1)}s ${violation.type}: ${violation.evidence}`);
  }
}

function sorted<V>(map: Map<string, V>): [string, V][] {
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}
