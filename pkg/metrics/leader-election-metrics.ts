// client-go's leader election metrics (component-base metrics/prometheus/clientgo/leaderelection)
// on a prom-client registry, with the same names, help and `name` label.
import { Counter, Gauge, type Registry } from "prom-client";
import type { LeaderElectionMetrics } from "../leaderelection/metrics.ts";

/** Registers `leader_election_master_status` and `leader_election_slowpath_total` on `registry`; create one per registry. */
export class PrometheusLeaderElectionMetrics implements LeaderElectionMetrics {
  private readonly masterStatus: Gauge<"name">;
  private readonly slowpath: Counter<"name">;

  constructor(registry: Registry) {
    const common = { labelNames: ["name"] as const, registers: [registry] };
    this.masterStatus = new Gauge({
      ...common,
      name: "leader_election_master_status",
      help:
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. " +
        "'name' is the string used to identify the lease. Please make sure to group by name.",
    });
    this.slowpath = new Counter({
      ...common,
      name: "leader_election_slowpath_total",
      help:
        "Total number of slow path exercised in renewing leader leases. " +
        "'name' is the string used to identify the lease. Please make sure to group by name.",
    });
  }

  setLeading(name: string, leading: boolean): void {
    this.masterStatus.set({ name }, leading ? 1 : 0);
  }

  slowpathExercised(name: string): void {
    this.slowpath.inc({ name });
  }
}
