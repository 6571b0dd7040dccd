// The differential run: two identical control planes side by side (the GC of one never sees the
// other's objects), kube-controller-manager on the first and the peer (kube-loom, or
// kube-controller-manager again to see what upstream itself does not decide the same way twice)
// on the second; per suite, the same seeded cases applied to both, compared, and every
// disagreement confirmed by a second run and shrunk to a minimal reproduction.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinaries } from "../../test/controlplane/binaries.ts";
import { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { fastClient } from "../../test/integration/informer-fixtures.ts";
import { buildKubeLoom } from "../../test/support/kube-loom-binary.ts";
import { SeededRandom } from "../soak/seeded-random.ts";
import { ActivityObserver } from "./activity-observer.ts";
import { type CaseRun, type RunSettings, runCase, type Side } from "./case-runner.ts";
import { CaseScope } from "./case-scope.ts";
import { type ControllerProcess, type Executables, type PeerName, startControllerProcess } from "./controller-process.ts";
import { installDifferentialCrds } from "./differential-crds.ts";
import type { DifferentialSuite } from "./differential-suite.ts";
import type { GcCase } from "./gc-case.ts";
import { gcSuite } from "./gc-suite.ts";
import type { RsCase } from "./rs-case.ts";
import { rsSuite } from "./rs-suite.ts";
import { shrinkCase } from "./shrink.ts";

export type SuiteName = "gc" | "rs";
export const suiteNames: readonly SuiteName[] = ["gc", "rs"];

/** A saved case, as written for every disagreement: run again with --replay. */
export type ReplayCase = { suite: "gc"; seed: number; case: GcCase } | { suite: "rs"; seed: number; case: RsCase };

export interface DifferentialOptions extends RunSettings {
  suites: readonly SuiteName[];
  cases: number;
  /** Case i of each suite uses seed + i. */
  seed: number;
  /** Runs of each case: more than one shows how often a timing-dependent outcome comes up. */
  repeat: number;
  /** What runs on the second control plane; kube-controller-manager always runs on the first. */
  peer: PeerName;
  /** Runs spent shrinking one disagreement. */
  shrinkRuns: number;
  /** Where minimal reproductions are written. */
  reportDir: string;
  /** Keeps both control planes' folders (controller logs included) under this folder. */
  keepDir?: string;
  /** Runs this one case instead of generated ones. */
  replay?: ReplayCase;
  log(line: string): void;
}

export interface Disagreement {
  seed: number;
  diff: string[];
  /** The second run of the same case disagreed too; one that did not is timing-dependent, reported but not a failure. */
  reproduced: boolean;
  minimal?: { description: string[]; diff: string[]; runs: number; complete: boolean; file: string };
}

export interface SuiteReport {
  suite: SuiteName;
  title: string;
  sides: [string, string];
  firstSeed: number;
  /** Case runs compared (cases × repeat), shrinking runs not counted. */
  cases: number;
  agreed: number;
  disagreements: Disagreement[];
  seconds: number;
}

export async function runDifferential(options: DifferentialOptions): Promise<SuiteReport[]> {
  const [controlPlanes, executables] = await Promise.all([startControlPlanes(options.keepDir), findExecutables(options.peer)]);
  try {
    const reports: SuiteReport[] = [];
    for (const name of options.replay ? [options.replay.suite] : options.suites) {
      const replay = options.replay;
      if (name === "gc") reports.push(await runSuite(gcSuite, controlPlanes, executables, options, replay?.suite === "gc" ? replay : undefined));
      else reports.push(await runSuite(rsSuite, controlPlanes, executables, options, replay?.suite === "rs" ? replay : undefined));
    }
    return reports;
  } finally {
    await Promise.all(controlPlanes.map((controlPlane) => controlPlane.stop()));
  }
}

async function startControlPlanes(keepDir: string | undefined): Promise<[ControlPlane, ControlPlane]> {
  const binaries = await ensureBinaries();
  const start = (name: string) => ControlPlane.start({ binaries, ...(keepDir ? { dir: join(keepDir, name) } : {}) });
  const started = await Promise.allSettled([start("first"), start("second")]);
  const running = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (failed || running.length !== 2) {
    await Promise.all(running.map((controlPlane) => controlPlane.stop()));
    throw failed?.reason ?? new Error("a control plane did not start");
  }
  const pair = running as [ControlPlane, ControlPlane];
  await Promise.all(pair.map(installDifferentialCrds));
  return pair;
}

async function findExecutables(peer: PeerName): Promise<Executables> {
  const [binaries, kubeLoom] = await Promise.all([ensureBinaries({ withControllerManager: true }), peer === "kube-loom" ? buildKubeLoom() : ""]);
  return { kubeControllerManager: binaries.kubeControllerManager, kubeLoom };
}

interface RunningSide extends Side {
  controller: ControllerProcess;
  observer: ActivityObserver;
}

async function runSuite<Case>(
  suite: DifferentialSuite<Case>,
  controlPlanes: readonly [ControlPlane, ControlPlane],
  executables: Executables,
  options: DifferentialOptions,
  replay: { seed: number; case: Case } | undefined,
): Promise<SuiteReport> {
  const started = performance.now();
  const peers: [PeerName, PeerName] = ["kube-controller-manager", options.peer];
  const sideNames: [string, string] = [peers[0], peers[1] === peers[0] ? `${peers[1]} (second)` : peers[1]];
  const sides = await Promise.all(
    controlPlanes.map(async (controlPlane, index): Promise<RunningSide> => {
      const client = await fastClient(controlPlane.kubeconfigPath);
      const controller = await startControllerProcess(peers[index] ?? options.peer, controlPlane, suite.controllers, executables, `${suite.name}-${peers[index]}`);
      const observer = await ActivityObserver.start(client, suite.watched);
      const name = sideNames[index] ?? "";
      return { name, client, controller, observer, lastChangeAt: () => observer.lastChangeAt, queueActivity: () => controller.queueActivity() };
    }),
  );
  const pair = sides as [RunningSide, RunningSide];
  try {
    options.log(`${suite.title}: ${sideNames.join(" vs ")}; warming up`);
    await Promise.all(pair.map((side) => suite.warmUp(side.client, new CaseScope(`${suite.name}-warm-up`))));
    const seeded = replay ? [replay] : Array.from({ length: options.cases }, (_, i) => seededCase(suite, (options.seed + i) >>> 0));
    const cases = seeded.flatMap((testCase) => Array.from({ length: options.repeat }, () => testCase));
    const disagreements: Disagreement[] = [];
    // Every run of a case, shrinking included, in namespaces of its own.
    let runs = 0;
    const scopeOf = (seed: number) => `${suite.name}-${seed}-${runs++}`;
    for (const { seed, case: testCase } of cases) {
      const run = await runCase(suite, pair, testCase, scopeOf(seed), options);
      options.log(`${suite.name} seed ${seed}: ${run.agreed ? "agree" : "DISAGREE"} (${run.seconds.toFixed(1)} s)`);
      if (!run.agreed) disagreements.push(await investigate(suite, pair, seed, testCase, run, () => scopeOf(seed), options));
    }
    return {
      suite: suite.name as SuiteName,
      title: suite.title,
      sides: sideNames,
      firstSeed: replay?.seed ?? options.seed,
      cases: cases.length,
      agreed: cases.length - disagreements.length,
      disagreements,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await Promise.all(pair.flatMap((side) => [side.observer.stop(), side.controller.stop()]));
  }
}

function seededCase<Case>(suite: DifferentialSuite<Case>, seed: number): { seed: number; case: Case } {
  return { seed, case: suite.generate(new SeededRandom(seed)) };
}

/** Runs a disagreeing case again, and if it disagrees again, shrinks it and saves the smallest variant that still does. */
async function investigate<Case>(
  suite: DifferentialSuite<Case>,
  sides: readonly [Side, Side],
  seed: number,
  testCase: Case,
  first: CaseRun,
  nextScope: () => string,
  options: DifferentialOptions,
): Promise<Disagreement> {
  for (const line of first.diff) options.log(`  ${line}`);
  const rerun = async (candidate: Case) => runCase(suite, sides, candidate, nextScope(), options);
  const again = await rerun(testCase);
  if (again.agreed) {
    options.log(`  seed ${seed} agreed when run again: timing-dependent, not shrunk`);
    return { seed, diff: first.diff, reproduced: false };
  }
  let minimalDiff = again.diff;
  const shrunk = await shrinkCase(
    testCase,
    (candidate) => suite.smallerCases(candidate),
    async (candidate) => {
      const run = await rerun(candidate);
      if (!run.agreed) minimalDiff = run.diff;
      return !run.agreed;
    },
    options.shrinkRuns,
  );
  mkdirSync(options.reportDir, { recursive: true });
  const file = join(options.reportDir, `differential-${suite.name}-${seed}.json`);
  writeFileSync(file, `${JSON.stringify({ suite: suite.name, seed, case: shrunk.minimal }, null, 1)}\n`);
  const description = suite.describe(shrunk.minimal);
  options.log(`  seed ${seed} shrunk in ${shrunk.runs} runs${shrunk.complete ? "" : " (budget spent)"} to:`);
  for (const line of [...description, ...minimalDiff]) options.log(`    ${line}`);
  options.log(`  replay: bun bench/differential.ts --replay ${file}`);
  return { seed, diff: first.diff, reproduced: true, minimal: { description, diff: minimalDiff, runs: shrunk.runs, complete: shrunk.complete, file } };
}
