// The soak's result as tables: what was done to the system, what it had to withstand, what
// went wrong, and the figures (Pod excess, convergence, leadership), then the evidence.
import { printTable } from "../print-table.ts";
import { mib, usagePeriods } from "./replica-usage.ts";
import type { SoakResult } from "./run-soak.ts";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function printSoakReport(result: SoakResult): void {
  const { tally, podExcess, convergence, options } = result;
  const counts: string[][] = [["kind", "type", "count"]];
  for (const [type, count] of sorted(tally.faults)) {
    const requests = tally.faultedRequests.get(type);
    counts.push(["fault", type, requests === undefined ? String(count) : `${count} windows, ${requests} requests`]);
  }
  for (const [type, count] of sorted(tally.skippedFaults)) counts.push(["fault skipped", type, String(count)]);
  for (const [type, { ok, failed }] of sorted(tally.operations)) counts.push(["operation", type, failed ? `${ok} (+${failed} failed)` : String(ok)]);
  for (const [cause, count] of sorted(result.replicaExits)) counts.push(["replica exit", cause, String(count)]);
  for (const [type, count] of sorted(result.loggedErrors)) counts.push(["replica log", `lines with a ${type}`, String(count)]);
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
    ...(options.mode === "leader-election" ? [["replica starts with warm standby on / off", `${result.warmStandbyStarts.on} / ${result.warmStandbyStarts.off}`]] : []),
    ["stack traces in the replicas' logs", String(result.stackTraces.length)],
    ["logs", options.logDir],
  ]);
  printUsage(result);
  if (result.stackTraces.length > 0) {
    console.log("\nstack traces in the replicas' logs (first 10; each is a bug):");
    for (const found of result.stackTraces.slice(0, 10)) console.log(`  ${found.path}:${found.line}: ${found.excerpt}`);
  }
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

/** Each replica's peak RSS and sockets per period: 5 minutes in a run of 20 minutes or more, a sixth of the run otherwise. */
function printUsage(result: SoakResult): void {
  const { durationMs } = result.options;
  const periodMs = durationMs >= 20 * 60_000 ? 5 * 60_000 : Math.max(5_000, Math.round(durationMs / 6 / 1000) * 1000);
  const rows = [["replica", "minutes", "peak RSS MiB", "peak sockets", "processes", "oldest process min", "objects cached"]];
  for (const period of usagePeriods(result.usage, periodMs)) {
    rows.push([
      period.user,
      `${(period.fromMs / 60_000).toFixed(1)}-${(period.toMs / 60_000).toFixed(1)}`,
      mib(period.peakRssKiB),
      String(period.peakSockets),
      String(period.processes),
      (period.oldestAgeMs / 60_000).toFixed(1),
      String(period.cachedObjects),
    ]);
  }
  console.log("");
  printTable(rows);
}

function sorted<V>(map: Map<string, V>): [string, V][] {
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}
