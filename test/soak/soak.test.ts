// The chaos soak's short variant (bench/soak.ts runs the long one): two kube-loom replicas with
// leader election, 60 s of workload and faults, then convergence; zero violations allowed.
// A failure prints the seed and the evidence; SOAK_SEED=<seed> repeats its choices.
import { rmSync } from "node:fs";
import { expect, test } from "bun:test";
import { runSoak } from "../../bench/soak/run-soak.ts";
import { shortSoakOptions } from "../../bench/soak/soak-options.ts";
import { printSoakReport } from "../../bench/soak/soak-report.ts";

test("short chaos soak: faults and workload leave no violated invariant", async () => {
  const seed = process.env.SOAK_SEED === undefined ? undefined : Number(process.env.SOAK_SEED);
  const result = await runSoak(shortSoakOptions(seed === undefined ? {} : { seed }));
  printSoakReport(result);
  const evidence = result.tally.violations.map((v) => `${v.type}: ${v.evidence}`);
  expect(evidence, `seed ${result.options.seed}, logs in ${result.options.logDir}`).toEqual([]);
  // Logs are kept only for a failed run.
  rmSync(result.options.logDir, { recursive: true, force: true });
  // Faults were injected (skipped ones are not counted) and the system settled afterwards, so the zero above means something.
  expect(result.tally.faults.size).toBeGreaterThan(0);
  expect(result.convergence.convergedAfterMs).toBeDefined();
}, 300_000);
