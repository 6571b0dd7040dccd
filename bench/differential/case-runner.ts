// One run of one case on both sides: each step sent to both control planes at once, then a wait
// until both are quiet; at the end both outcomes (every operation's answer and the surviving
// objects) are compared line by line.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { CaseScope } from "./case-scope.ts";
import type { DifferentialSuite } from "./differential-suite.ts";
import { agrees, diffOutcomes, formatDiff, type OutcomeDiff } from "./outcome-diff.ts";
import { type QuietSource, waitForQuiescence } from "./quiescence.ts";

export interface Side extends QuietSource {
  readonly client: KubeClient;
}

export interface RunSettings {
  idleMs: number;
  quiescenceTimeoutMs: number;
}

export interface CaseRun {
  agreed: boolean;
  /** The disagreement, "- only on <left>: …" / "+ only on <right>: …", or the error that ended the run. */
  diff: string[];
  /** The lines only one side has; none when the run itself failed. */
  outcome?: OutcomeDiff;
  seconds: number;
}

export async function runCase<Case>(
  suite: DifferentialSuite<Case>,
  sides: readonly [Side, Side],
  testCase: Case,
  scopeId: string,
  settings: RunSettings,
): Promise<CaseRun> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const scope = new CaseScope(scopeId);
  const appliers = sides.map((side) => suite.open(side.client, testCase, scope));
  const outcomes: string[][] = sides.map(() => []);
  try {
    const stepCount = appliers[0]?.stepCount ?? 0;
    for (let step = 0; step < stepCount; step++) {
      const answers = await Promise.all(appliers.map((applier) => applier.applyStep(step)));
      answers.forEach((lines, side) => outcomes[side]?.push(...lines.map((line) => `step ${step + 1}: ${line}`)));
      await waitForQuiescence(sides, { idleMs: settings.idleMs, timeoutMs: settings.quiescenceTimeoutMs });
    }
    const snapshots = await Promise.all(appliers.map((applier) => applier.snapshot()));
    const [left, right] = sides.map((_, side) => [...(outcomes[side] ?? []), ...(snapshots[side] ?? [])]);
    const diff = diffOutcomes(left ?? [], right ?? []);
    return { agreed: agrees(diff), diff: formatDiff(diff, sides[0].name, sides[1].name), outcome: diff, seconds: seconds() };
  } catch (err) {
    return { agreed: false, diff: [`run failed: ${err instanceof Error ? err.message : String(err)}`], seconds: seconds() };
  }
}
