import { expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { LeaderElectionRecord } from "../leaderelection/lease-lock.ts";
import { LeaseCandidates } from "./lease-candidates.ts";
import { leaderElectionStatus } from "./leader-election-status.ts";

const record = (holderIdentity: string): LeaderElectionRecord => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: 1_000,
  renewTime: 2_000,
  leaseTransitions: 3,
});

test("the holder and its times come from the Lease; a released Lease has no holder and no times", () => {
  const candidates = new LeaseCandidates("me", new FakeClock());
  const held = leaderElectionStatus("kube-system/kube-loom", { isLeader: () => false, observedLeaderRecord: record("other") }, candidates);
  expect(held).toMatchObject({ lease: "kube-system/kube-loom", leading: false, holder: "other", holderSince: 1_000, lastRenewal: 2_000, leaseTransitions: 3 });
  const released = leaderElectionStatus("kube-system/kube-loom", { isLeader: () => false, observedLeaderRecord: record("") }, candidates);
  expect(released).toMatchObject({ holder: "", holderSince: undefined, lastRenewal: undefined, leaseTransitions: 3 });
});
