// The chaos soak's short variant (bench/soak.ts runs the long one): two kube-loom replicas with
// leader election, 60 s of workload and faults, then convergence; zero violations allowed.
// A failure prints the seed and the evidence; SOAK_SEED=<seed> repeats its choices.
import { test } from "bun:test";
import { shortSoakOptions } from "../../bench/soak/soak-options.ts";
import { expectCleanSoak, requestedSeed } from "./clean-soak.ts";

test("short chaos soak: faults and workload leave no violated invariant", async () => {
  await expectCleanSoak(shortSoakOptions(requestedSeed()));
}, 300_000);
