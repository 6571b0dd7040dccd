// Shrinking a failing case: greedily take the first smaller variant that still fails, and start
// over from it, until no variant fails or the run budget is spent. Each attempt is a full run on
// both control planes, so the budget, not the search, bounds the time; a variant that passed once
// is not run again when it comes up from a later starting point.

export interface ShrinkResult<Case> {
  minimal: Case;
  /** Runs spent, failing or not. */
  runs: number;
  /** False when the budget ran out before every variant of `minimal` was tried. */
  complete: boolean;
}

export async function shrinkCase<Case>(
  failing: Case,
  smaller: (testCase: Case) => Case[],
  stillFails: (testCase: Case) => Promise<boolean>,
  maxRuns: number,
): Promise<ShrinkResult<Case>> {
  let minimal = failing;
  let runs = 0;
  const passed = new Set<string>();
  search: for (;;) {
    for (const candidate of smaller(minimal)) {
      const key = JSON.stringify(candidate);
      if (passed.has(key)) continue;
      if (runs >= maxRuns) return { minimal, runs, complete: false };
      runs++;
      if (await stillFails(candidate)) {
        minimal = candidate;
        continue search;
      }
      passed.add(key);
    }
    return { minimal, runs, complete: true };
  }
}
