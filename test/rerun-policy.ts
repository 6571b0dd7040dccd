// Whether a test run passes, given which files failed once and passed when run again. A file that
// fails twice fails the run; one that passed only on its rerun fails it too unless known-flaky.ts
// lists it: a race that fails half the time would otherwise pass three runs in four. The summary
// line names every file that was rerun, so a flake shows even where it is allowed.
import type { KnownFlakyFile } from "./known-flaky.ts";

/** How one job of the runner ended. */
export interface JobOutcome {
  /** The job's name, e.g. a test file, or a file with " against 1.35" for a skew job. */
  name: string;
  /** The test files it ran. */
  files: readonly string[];
  passed: number;
  failed: number;
  /** It failed, was run again, and passed the second time. */
  passedOnRerun: boolean;
}

/** A job that passed only on its rerun, and the list's reason when the list allows it. */
export interface Rerun {
  name: string;
  /** Undefined when a file of the job is not on the known-flaky list: that fails the run. */
  knownFlakyReason: string | undefined;
}

export interface RunVerdict {
  passes: boolean;
  reruns: Rerun[];
  /** The last line of the run's output: the counts, then every job that was rerun. */
  summary: string;
}

export function judgeRun(outcomes: readonly JobOutcome[], knownFlaky: readonly KnownFlakyFile[]): RunVerdict {
  const reasons = new Map(knownFlaky.map((entry) => [entry.file, entry.reason]));
  const reruns = outcomes
    .filter((outcome) => outcome.passedOnRerun)
    .map((outcome): Rerun => {
      const allowed = outcome.files.every((file) => reasons.has(file));
      return { name: outcome.name, knownFlakyReason: allowed ? outcome.files.map((file) => reasons.get(file)).join("; ") : undefined };
    });
  const passed = outcomes.reduce((sum, outcome) => sum + outcome.passed, 0);
  const failed = outcomes.reduce((sum, outcome) => sum + outcome.failed, 0);
  const unlisted = reruns.filter((rerun) => rerun.knownFlakyReason === undefined);
  const rerunNote = reruns.map((rerun) => `${rerun.name} (${rerun.knownFlakyReason === undefined ? "not known-flaky" : "known flaky"})`).join(", ");
  const summary = [
    `${passed} passed, ${failed} failed`,
    ...(reruns.length > 0 ? [`${reruns.length} passed only when rerun: ${rerunNote}`] : []),
    ...(unlisted.length > 0 ? [`failing the run: ${unlisted.length} rerun not listed in test/known-flaky.ts`] : []),
  ].join("; ");
  return { passes: failed === 0 && unlisted.length === 0, reruns, summary };
}
