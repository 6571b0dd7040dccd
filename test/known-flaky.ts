// The integration test files that may need a second run to pass without failing the suite, each
// with the reason it is known to be timing-dependent and what would fix it. The runner
// (run-test-files.ts, through rerun-policy.ts) fails any run in which a file not listed here needed
// a rerun, so a race cannot hide behind the retry. Add an entry only with a reason a reviewer can
// check, and remove it with the fix.

/** One file allowed a rerun, and why. */
export interface KnownFlakyFile {
  /** The test file, relative to the repository root, e.g. "test/integration/leader-election.test.ts". */
  file: string;
  /** Why it can fail on a healthy build, and what would make it deterministic. */
  reason: string;
}

export const knownFlakyFiles: readonly KnownFlakyFile[] = [
  {
    file: "test/replicaset/restart.test.ts",
    reason:
      "After kill -9 in the middle of a scale-down, a 51st Pod was once in a while left with a deletionTimestamp and never removed " +
      "(seen three times in parallel runs, the census in the failure message; it passed 10 of 10 runs alone and on the commit before " +
      "the ambiguous-writes change). A DELETE cut off by the kill seems to leave the Pod half-deleted in kube-apiserver; a test " +
      "that holds the kill until no DELETE is in flight, or a finding of the cause, would remove this entry.",
  },
];
