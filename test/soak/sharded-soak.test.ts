// The chaos soak with a shard ring (`bun bench/soak.ts --sharded` runs the long one): three
// kube-loom members to begin with, replicas joining and leaving (SIGTERM, kill -9) among the
// soak's other faults, 3 minutes of workload and faults, then convergence. Zero violations,
// double acts (a write by a member not holding its namespace's slot) included; about 195 s in all.
// Three minutes, not ten: this file runs in one lane of the suite beside the others, and a
// ten-minute job would push a warm run past its 20-minute budget; three minutes still deal every
// fault kind twice or more.
// A failure prints the seed and the evidence; SOAK_SEED=<seed> repeats its choices.
import { expect, test } from "bun:test";
import { shortSoakOptions } from "../../bench/soak/soak-options.ts";
import { expectCleanSoak, requestedSeed } from "./clean-soak.ts";

test("sharded chaos soak: members joining and leaving under faults and workload leave no violated invariant and no double act", async () => {
  const result = await expectCleanSoak(shortSoakOptions({ mode: "sharded", durationMs: 180_000, ...requestedSeed() }));
  const faults = [...result.tally.faults.keys()];
  expect(faults).toContain("replica-added");
  expect(faults.some((fault) => fault.startsWith("replica-removed"))).toBe(true);
  expect(faults.some((fault) => fault.startsWith("member-"))).toBe(true);
}, 480_000);
