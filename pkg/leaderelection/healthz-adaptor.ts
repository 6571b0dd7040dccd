// The `leaderElection` /healthz check (client-go's HealthzAdaptor): a leader that has not renewed
// for leaseDuration + tolerance should have stopped by itself; if it is stuck (a deadlock, a hung
// callback) the failing check lets the kubelet restart it. Created before the elector exists,
// because the health endpoint is served before the election starts.
import type { HealthCheck } from "../health/health-check.ts";
import type { LeaderElector } from "./leader-elector.ts";

export class LeaderElectionHealthCheck implements HealthCheck {
  readonly name = "leaderElection";
  private elector: LeaderElector | undefined;

  /** `toleranceMs`: how long past the lease duration a leader may go unrenewed; kube-controller-manager uses 20 s. */
  constructor(private readonly toleranceMs: number) {}

  setLeaderElection(elector: LeaderElector): void {
    this.elector = elector;
  }

  check(): void {
    this.elector?.check(this.toleranceMs);
  }
}
