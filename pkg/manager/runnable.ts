// What the manager runs (controller-runtime's Runnable): a controller, or anything else with a
// lifetime. It declares what the manager needs to know to start it right: whether it runs only
// while this process leads, the caches it reads (/readyz fails until they have synced), and the
// checks /healthz and /livez run for it.
import type { HealthCheck } from "../health/health-check.ts";
import type { CacheSyncSource } from "../informer/wait-for-cache-sync.ts";
import type { DebugRoute } from "../debug/debug-route.ts";
import type { ControllerReport } from "../status/status-snapshot.ts";

/**
 * What the manager runs: a controller (what `ControllerDescriptor.create` returns), or anything else with a
 * lifetime. The manager waits for its `caches` to sync before it counts as ready, and starts it only while the
 * process leads unless `needsLeaderElection` is false.
 */
export interface Runnable {
  /** Names it in logs; a controller's is its --controllers name. */
  readonly name: string;
  /** false: runs on every replica from the start, leader or not. Default: only while leading. */
  readonly needsLeaderElection?: boolean;
  /** The caches it reads: /readyz fails until all have synced. */
  readonly caches?: readonly CacheSyncSource[];
  /** Added to /healthz and /livez. */
  readonly healthChecks?: readonly HealthCheck[];
  /** Read-only pages it serves under /debug/controllers/<controller>/<path>. */
  readonly debugRoutes?: readonly DebugRoute[];
  /** What /debug/status shows of it: its reconcile loops and any details. */
  status?(): ControllerReport;
  /**
   * Runs until `stop` aborts (take no new work, return once in-flight work is done) or `abort`
   * aborts (stop at once).
   */
  start(stop: AbortSignal, abort: AbortSignal): Promise<void>;
}
