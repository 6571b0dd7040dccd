// Differential tests against kube-controller-manager v1.37: seeded random cases (owner graphs for
// the garbage collector; scaling, relabelling, orphaning and adoption for ReplicaSets) applied to
// two identical control planes, one run by kube-controller-manager and one by kube-loom; after
// both quiesce their outcomes must be identical. Asserts outcomes, not times. A disagreement is
// run again, and run --upstream-runs times with kube-controller-manager on both sides: if
// upstream itself once ends split exactly the same way, kube-loom's outcome is one upstream
// reaches too (a race in upstream) and the case does not fail. Any other disagreement fails the
// run (exit code 1) with its seed; one that comes back is also shrunk to a minimal reproduction,
// saved for --replay.
//   bun bench/differential.ts [--cases 100] [--seed S] [--suite gc|rs|all] [--peer kube-loom|kube-controller-manager]
//                             [--repeat 1] [--idle-ms 2000] [--shrink-runs 40] [--upstream-runs 10] [--report-dir DIR]
//                             [--keep-dir DIR] [--replay FILE] [--v N] [--kube-api-content-type TYPE]
// --v and --kube-api-content-type are passed to both controller managers.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { peerNames, type PeerName } from "./differential/controller-process.ts";
import { type DifferentialOptions, isFailure, type ReplayCase, runDifferential, type SuiteName, suiteNames, type SuiteReport } from "./differential/run-differential.ts";
import { printTable } from "./print-table.ts";
import { apiContentTypes, isApiContentType } from "../pkg/kube/protobuf/media-types.ts";

const usage =
  "usage: bun bench/differential.ts [--cases N] [--seed S] [--suite gc|rs|all] [--peer kube-loom|kube-controller-manager] [--repeat N] [--idle-ms MS] [--quiescence-timeout-s S] [--shrink-runs N] [--upstream-runs N] [--report-dir DIR] [--keep-dir DIR] [--replay FILE] [--v N] [--kube-api-content-type TYPE]";

let options: DifferentialOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (err) {
  console.error(`${err instanceof Error ? err.message : String(err)}\n${usage}`);
  process.exit(2);
}

console.error(`differential: seed ${options.seed}, ${options.replay ? "1 replayed case" : `${options.cases} cases per suite`}, kube-controller-manager vs ${options.peer}`);
const reports = await runDifferential(options);
printReports(reports);
process.exit(reports.some((report) => report.disagreements.some(isFailure)) ? 1 : 0);

function parseOptions(args: string[]): DifferentialOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      cases: { type: "string", default: "100" },
      seed: { type: "string" },
      suite: { type: "string", default: "all" },
      peer: { type: "string", default: "kube-loom" },
      repeat: { type: "string", default: "1" },
      "idle-ms": { type: "string", default: "2000" },
      "quiescence-timeout-s": { type: "string", default: "90" },
      "shrink-runs": { type: "string", default: "40" },
      "upstream-runs": { type: "string", default: "10" },
      "report-dir": { type: "string", default: tmpdir() },
      "keep-dir": { type: "string" },
      replay: { type: "string" },
      v: { type: "string", default: "0" },
      "kube-api-content-type": { type: "string" },
    },
  });
  const suite = values.suite;
  if (suite !== "all" && !suiteNames.includes(suite as SuiteName)) throw new Error(`--suite must be gc, rs or all, not "${suite}"`);
  if (!peerNames.includes(values.peer as PeerName)) throw new Error(`--peer must be one of ${peerNames.join(", ")}, not "${values.peer}"`);
  const contentType = values["kube-api-content-type"];
  if (contentType !== undefined && !isApiContentType(contentType)) throw new Error(`--kube-api-content-type must be one of ${apiContentTypes.join(", ")}, not "${contentType}"`);
  const replay = values.replay === undefined ? undefined : readReplay(values.replay);
  return {
    suites: suite === "all" ? suiteNames : [suite as SuiteName],
    cases: positiveInteger("--cases", values.cases),
    seed: replay?.seed ?? (values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : nonNegativeInteger("--seed", values.seed)),
    peer: values.peer as PeerName,
    repeat: positiveInteger("--repeat", values.repeat),
    idleMs: positiveInteger("--idle-ms", values["idle-ms"]),
    quiescenceTimeoutMs: positiveInteger("--quiescence-timeout-s", values["quiescence-timeout-s"]) * 1000,
    shrinkRuns: nonNegativeInteger("--shrink-runs", values["shrink-runs"]),
    upstreamRuns: nonNegativeInteger("--upstream-runs", values["upstream-runs"]),
    reportDir: values["report-dir"],
    settings: { verbosity: nonNegativeInteger("--v", values.v), ...(contentType === undefined ? {} : { contentType }) },
    ...(values["keep-dir"] === undefined ? {} : { keepDir: values["keep-dir"] }),
    ...(replay ? { replay } : {}),
    log: (line) => console.error(line),
  };
}

function positiveInteger(flag: string, text: string): number {
  const value = nonNegativeInteger(flag, text);
  if (value === 0) throw new Error(`${flag} must be at least 1`);
  return value;
}

function nonNegativeInteger(flag: string, text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new Error(`${flag} must be a whole number, not "${text}"`);
  return Number(text);
}

/** A file written for a disagreement: {"suite", "seed", "case"}; the case itself is trusted to be one this tool wrote. */
function readReplay(path: string): ReplayCase {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`--replay ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const saved = parsed as Partial<ReplayCase> | null;
  if (!saved || !suiteNames.includes(saved.suite as SuiteName) || typeof saved.seed !== "number" || typeof saved.case !== "object" || !Array.isArray(saved.case?.steps)) {
    throw new Error(`--replay ${path}: not a saved case (expected {"suite": "gc"|"rs", "seed": N, "case": {...}})`);
  }
  return saved as ReplayCase;
}

function printReports(reports: SuiteReport[]): void {
  const rows = [["suite", "sides", "seeds", "runs", "agreed", "disagreed (reproduced; upstream too)", "failed", "minutes", "s per run"]];
  for (const report of reports) {
    const reproduced = report.disagreements.filter((disagreement) => disagreement.reproduced).length;
    const upstreamToo = report.disagreements.filter((disagreement) => !isFailure(disagreement)).length;
    rows.push([
      report.title,
      report.sides.join(" vs "),
      seedRange(report),
      String(report.cases),
      String(report.agreed),
      `${report.disagreements.length} (${reproduced}; ${upstreamToo})`,
      String(report.disagreements.filter(isFailure).length),
      (report.seconds / 60).toFixed(1),
      (report.seconds / report.cases).toFixed(1),
    ]);
  }
  printTable(rows);
  for (const report of reports) {
    for (const disagreement of report.disagreements) {
      const where = disagreement.minimal ? `, minimal case in ${disagreement.minimal.file}` : disagreement.reproduced ? "" : ", timing-dependent (did not come back)";
      const upstream = disagreement.upstream
        ? `; kube-controller-manager against itself: ${disagreement.upstream.disagreed} of ${disagreement.upstream.runs} runs disagreed${disagreement.upstream.sameSplit ? ", once split exactly so (upstream race, not a failure)" : ""}`
        : "";
      console.log(`${report.suite} seed ${disagreement.seed}: ${disagreement.diff.length} differing lines${where}${upstream}${isFailure(disagreement) ? ": FAILED" : ""}`);
    }
  }
}

function seedRange(report: SuiteReport): string {
  const last = report.firstSeed + Math.ceil(report.cases / options.repeat) - 1;
  return last === report.firstSeed ? String(last) : `${report.firstSeed}…${last}`;
}
