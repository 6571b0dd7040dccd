// The differential tests' fixed CI set: three garbage-collector and three ReplicaSet cases (seeds
// 118-120, which between them use every kind of edge and operation the generators make but the
// release of held Pods) applied to kube-controller-manager v1.37 and kube-loom on two control
// planes; the outcomes must be the same. The full run: `bun bench/differential.ts --cases 100`
// (bench/README.md).
import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { isFailure, runDifferential, type SuiteReport } from "../../bench/differential/run-differential.ts";

test("kube-loom's garbage collector and ReplicaSet controller reach kube-controller-manager's outcomes on the fixed cases", async () => {
  const reports = await runDifferential({
    suites: ["gc", "rs"],
    cases: 3,
    seed: 118,
    repeat: 1,
    peer: "kube-loom",
    idleMs: 2000,
    quiescenceTimeoutMs: 90_000,
    shrinkRuns: 10,
    upstreamRuns: 5,
    reportDir: tmpdir(),
    log: (line) => console.error(line),
  });
  // A disagreement fails when it comes back and upstream never ends the same way; one that does
  // not come back is printed with its seed, for `bun bench/differential.ts --replay` (bench/README.md).
  const failures = (report: SuiteReport) => report.disagreements.filter((d) => d.reproduced && isFailure(d));
  const reproduced = reports.map((report) => ({ suite: report.suite, cases: report.cases, disagreements: failures(report) }));
  expect(reproduced).toEqual([
    { suite: "gc", cases: 3, disagreements: [] },
    { suite: "rs", cases: 3, disagreements: [] },
  ]);
}, 600_000);
