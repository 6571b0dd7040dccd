// The leader-election part of the status page: who holds the Lease and since when, as the
// Lease says (its holder's clock), and every candidate this process knows of.
import type { LeaderElectionRecord } from "../leaderelection/lease-lock.ts";
import type { LeaseCandidates } from "./lease-candidates.ts";
import type { LeaderElectionStatus } from "./status-snapshot.ts";

/** The slice of the LeaderElector read here. */
export interface ObservedElection {
  isLeader(): boolean;
  readonly observedLeaderRecord: Readonly<LeaderElectionRecord>;
}

export function leaderElectionStatus(lease: string, election: ObservedElection, candidates: LeaseCandidates): LeaderElectionStatus {
  const record = election.observedLeaderRecord;
  const held = record.holderIdentity !== "";
  return {
    lease,
    leading: election.isLeader(),
    holder: record.holderIdentity,
    holderSince: held && record.acquireTime > 0 ? record.acquireTime : undefined,
    lastRenewal: held && record.renewTime > 0 ? record.renewTime : undefined,
    leaseTransitions: record.leaseTransitions,
    candidates: candidates.list(),
  };
}
