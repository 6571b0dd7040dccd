// The chaos soak with a shard ring (`bun bench/soak.ts --sharded` runs the long one): three
// kube-loom members to begin with, replicas joining and leaving (SIGTERM, kill -9) among the
// soak's other faults, 2 minutes of workload and faults, then convergence. Zero violations,
// double acts (a write by a member not holding its namespace's slot) included; about 135 s in all.
// Two minutes, not ten: this file runs in one lane of the suite beside the others, and the suite
// has a 20-minute budget. The chaos monkey deals its faults from a deck holding every kind once,
// so the first eight faults (about a minute) see every kind; two minutes deal most kinds twice.
// A failure prints the seed and the evidence; SOAK_SEED=<seed> repeats its choices.
import { expect, test } from "bun:test";
import { shortSoakOptions } from "../../bench/soak/soak-options.ts";
import { expectCleanSoak, requestedSeed } from "./clean-soak.ts";

test("sharded chaos soak: members joining and leaving under faults and workload leave no violated invariant and no double act", async () => {
  const result = await expectCleanSoak(shortSoakOptions({ mode: "sharded", durationMs: 120_000, ...requestedSeed() }));
  // Every kind of fault was injected, not only dealt: a member or replica fault is skipped now and then (no member acting, every replica running), so dealing most kinds twice matters.
  const faults = [...result.tally.faults.keys()];
  for (const kind of ["apiserver-restart", "tcp-cut", "partition", "etcd-compaction", "member-", "replica-added", "replica-removed"]) {
    expect(faults.some((fault) => fault.startsWith(kind)), `${kind} among ${faults.join(", ")}`).toBe(true);
  }
}, 480_000);
