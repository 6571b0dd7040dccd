// client-go's leader election metrics (component-base metrics/prometheus/clientgo/leaderelection)
// on a prom-client registry, with the same names and `name` label.
import type { Counter, Gauge, Registry } from "prom-client";
import type { LeaderElectionMetrics } from "../leaderelection/metrics.ts";
import { counter, gauge } from "./declare.ts";

const leaseLabel = ["name"] as const;

/** Registers `leader_election_master_status` and `leader_election_slowpath_total` on `registry`; create one per registry. */
export class PrometheusLeaderElectionMetrics implements LeaderElectionMetrics {
  private readonly masterStatus: Gauge<"name">;
  private readonly slowpath: Counter<"name">;

  constructor(registry: Registry) {
    this.masterStatus = gauge(registry, "leader_election_master_status", "1 while this process leads the Lease named by the 'name' label, 0 while it stands by.", leaseLabel);
    this.slowpath = counter(registry, "leader_election_slowpath_total", "Lease renewals that missed the fast path and had to read the Lease first, by Lease 'name'.", leaseLabel);
  }

  setLeading(name: string, leading: boolean): void {
    this.masterStatus.set({ name }, leading ? 1 : 0);
  }

  slowpathExercised(name: string): void {
    this.slowpath.inc({ name });
  }
}
