// What leader election reports, as client-go's leaderelection metrics provider: the
// prom-client implementation lives in pkg/metrics so this package needs no metrics library.
import { ignoringCalls } from "../noop/ignoring-calls.ts";

export interface LeaderElectionMetrics {
  /** Whether this process currently leads the lease called `name`. */
  setLeading(name: string, leading: boolean): void;
  /** A leader renewal missed the fast path (its cached Lease was stale) and had to read the Lease first. */
  slowpathExercised(name: string): void;
}

export const noopLeaderElectionMetrics: LeaderElectionMetrics = ignoringCalls(["setLeading", "slowpathExercised"]);
