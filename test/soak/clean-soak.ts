// What a soak test asserts, whichever mode it runs: no violation (the seed and the evidence in
// the message when there is one), faults really injected, and everything settled afterwards, so
// that the zero means something. SOAK_SEED=<seed> repeats a run's choices.
import { rmSync } from "node:fs";
import { expect } from "bun:test";
import { runSoak, type SoakResult } from "../../bench/soak/run-soak.ts";
import type { SoakOptions } from "../../bench/soak/soak-options.ts";
import { printSoakReport } from "../../bench/soak/soak-report.ts";

/** The seed SOAK_SEED asks for, if any. */
export function requestedSeed(): Partial<SoakOptions> {
  return process.env.SOAK_SEED === undefined ? {} : { seed: Number(process.env.SOAK_SEED) };
}

export async function expectCleanSoak(options: SoakOptions): Promise<SoakResult> {
  const result = await runSoak(options);
  printSoakReport(result);
  const evidence = result.tally.violations.map((v) => `${v.type}: ${v.evidence}`);
  expect(evidence, `seed ${result.options.seed}, logs in ${result.options.logDir}`).toEqual([]);
  // A stack trace in a replica's log is a bug even when every invariant held.
  expect(result.stackTraces.map((found) => found.excerpt), `seed ${result.options.seed}, logs in ${result.options.logDir}`).toEqual([]);
  // Logs are kept only for a failed run.
  rmSync(result.options.logDir, { recursive: true, force: true });
  // Faults were injected (skipped ones are not counted) and the system settled afterwards.
  expect(result.tally.faults.size).toBeGreaterThan(0);
  expect(result.ownership.writesChecked).toBeGreaterThan(0);
  expect(result.convergence.convergedAfterMs).toBeDefined();
  return result;
}
