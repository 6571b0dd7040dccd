// The differential run: two identical control planes side by side (the GC of one never sees the
// other's objects), kube-controller-manager on the first and the peer (kube-loom, or
// kube-controller-manager again to see what upstream itself does not decide the same way twice)
// on the second; per suite, the same seeded cases applied to both, compared, and every
// disagreement run again, put to upstream (the same case with kube-controller-manager on both
// sides: does upstream itself ever end as kube-loom did?) and, if it is kube-loom's alone and
// comes back, shrunk to a minimal reproduction.
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
import type { Executables } from "../peer-processes.ts";
import { type ControllerProcess, type ControllerSettings, type PeerName, startControllerProcess } from "./controller-process.ts";
import { installDifferentialCrds } from "./differential-crds.ts";
import type { DifferentialSuite } from "./differential-suite.ts";
import type { GcCase } from "./gc-case.ts";
import { gcSuite } from "./gc-suite.ts";
import type { RsCase } from "./rs-case.ts";
import { rsSuite } from "./rs-suite.ts";
import { sameSplit } from "./outcome-diff.ts";
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
  /** Runs of a disagreeing case with kube-controller-manager on both sides, looking for kube-loom's outcome. */
  upstreamRuns: number;
  /** Where minimal reproductions are written. */
  reportDir: string;
  /** Keeps both control planes' folders (controller logs included) under this folder. */
  keepDir?: string;
  /** -v and --kube-api-content-type of both controller managers. */
  settings?: ControllerSettings;
  /** Runs this one case instead of generated ones. */
  replay?: ReplayCase;
  log(line: string): void;
}

export interface Disagreement {
  seed: number;
  diff: string[];
  /** The second run of the same case disagreed too; one that did not is timing-dependent. */
  reproduced: boolean;
  /**
   * kube-controller-manager against itself on the same case ended once split exactly as here:
   * kube-loom's outcome is one upstream reaches too (a race in upstream), not a failure.
   */
  upstream?: { runs: number; disagreed: number; sameSplit: boolean };
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
  controlPlane: ControlPlane;
}

/** True when a disagreement fails the run: kube-loom's outcome, never reached by upstream. */
export function isFailure(disagreement: Disagreement): boolean {
  return !disagreement.upstream?.sameSplit;
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
      const controller = await startControllerProcess(peers[index] ?? options.peer, controlPlane, suite.controllers, executables, `${suite.name}-${peers[index]}`, options.settings);
      const observer = await ActivityObserver.start(client, suite.watched);
      const name = sideNames[index] ?? "";
      const side: RunningSide = {
        name,
        client,
        controller,
        observer,
        controlPlane,
        lastChangeAt: () => observer.lastChangeAt,
        queueActivity: () => side.controller.queueActivity(),
      };
      return side;
    }),
  );
  const pair = sides as [RunningSide, RunningSide];
  /** Runs a case with kube-controller-manager in place of the peer, then puts the peer back. */
  const askUpstream = async (testCase: Case, nextScope: () => string): Promise<CaseRun[]> => {
    const second = pair[1];
    const swap = async (peer: PeerName) => {
      await second.controller.stop();
      second.controller = await startControllerProcess(peer, second.controlPlane, suite.controllers, executables, `${suite.name}-${peer}-upstream-check`, options.settings);
    };
    await swap("kube-controller-manager");
    const upstreamSides: [Side, Side] = [pair[0], { ...second, name: `${peers[0]} (second)`, queueActivity: () => second.controller.queueActivity() }];
    try {
      const runs: CaseRun[] = [];
      for (let i = 0; i < options.upstreamRuns; i++) runs.push(await runCase(suite, upstreamSides, testCase, nextScope(), options));
      return runs;
    } finally {
      await swap(options.peer);
    }
  };
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
      if (!run.agreed) {
        const upstreamCheck = peers[1] === peers[0] ? undefined : askUpstream;
        disagreements.push(await investigate(suite, pair, seed, testCase, run, () => scopeOf(seed), upstreamCheck, options));
      }
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

/**
 * Runs a disagreeing case again and puts it to upstream; if kube-loom's outcome is its own and
 * came back, shrinks the case and saves the smallest variant that still disagrees.
 */
async function investigate<Case>(
  suite: DifferentialSuite<Case>,
  sides: readonly [Side, Side],
  seed: number,
  testCase: Case,
  first: CaseRun,
  nextScope: () => string,
  askUpstream: ((testCase: Case, nextScope: () => string) => Promise<CaseRun[]>) | undefined,
  options: DifferentialOptions,
): Promise<Disagreement> {
  for (const line of first.diff) options.log(`  ${line}`);
  const rerun = async (candidate: Case) => runCase(suite, sides, candidate, nextScope(), options);
  const again = await rerun(testCase);
  const reproduced = !again.agreed;
  let upstream: Disagreement["upstream"];
  if (askUpstream && first.outcome && options.upstreamRuns > 0) {
    const split = first.outcome;
    const runs = await askUpstream(testCase, nextScope);
    const disagreed = runs.filter((run) => !run.agreed);
    upstream = { runs: runs.length, disagreed: disagreed.length, sameSplit: disagreed.some((run) => run.outcome !== undefined && sameSplit(split, run.outcome)) };
    options.log(
      `  seed ${seed} with kube-controller-manager on both sides: ${upstream.disagreed} of ${upstream.runs} runs disagreed` +
        (upstream.sameSplit ? ", split exactly as here: upstream reaches kube-loom's outcome too" : ""),
    );
  }
  if (!reproduced || upstream?.sameSplit) {
    if (!reproduced) options.log(`  seed ${seed} agreed when run again: timing-dependent, not shrunk`);
    return { seed, diff: first.diff, reproduced, ...(upstream ? { upstream } : {}) };
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
  return {
    seed,
    diff: first.diff,
    reproduced: true,
    ...(upstream ? { upstream } : {}),
    minimal: { description, diff: minimalDiff, runs: shrunk.runs, complete: shrunk.complete, file },
  };
}
