// The timing rules client-go's NewLeaderElector enforces (it panics otherwise), checked up front
// so a bad combination is a usage error naming both flags instead of a crash after start-up.
import { formatGoDuration } from "./go-duration.ts";
import { isNamespaceName, isObjectName, NAMESPACE_RULE, OBJECT_NAME_RULE } from "./program.ts";
import { UsageError } from "./usage-error.ts";

export interface LeaderElectionOptions {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceLock: "leases";
  resourceName: string;
  resourceNamespace: string;
}

/** client-go's JitterFactor: retries may come up to 1.2 × the retry period apart, which must still fit in the deadline. */
const RETRY_JITTER_FACTOR = 1.2;

export function validateLeaderElection(options: LeaderElectionOptions): void {
  if (!options.enabled) return;
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = options;
  const lease = `--leader-elect-lease-duration (${formatGoDuration(leaseDurationMs)})`;
  const renew = `--leader-elect-renew-deadline (${formatGoDuration(renewDeadlineMs)})`;
  const retry = `--leader-elect-retry-period (${formatGoDuration(retryPeriodMs)})`;
  if (renewDeadlineMs >= leaseDurationMs) throw new UsageError(`${renew} must be less than ${lease}`);
  // Compared as renew × 5 vs retry × 6 so 2.4s against 2s is not decided by floating-point rounding.
  if (renewDeadlineMs * 5 <= retryPeriodMs * 6) {
    const jittered = formatGoDuration(retryPeriodMs * RETRY_JITTER_FACTOR);
    throw new UsageError(`${renew} must be greater than ${RETRY_JITTER_FACTOR} times ${retry}, that is more than ${jittered}`);
  }
  if (options.resourceName === "") throw new UsageError("--leader-elect-resource-name must not be empty when --leader-elect is on");
  if (options.resourceNamespace === "") {
    throw new UsageError("--leader-elect-resource-namespace must not be empty when --leader-elect is on");
  }
  // The API server would refuse the Lease on every attempt, forever, rather than once at start.
  if (!isObjectName(options.resourceName)) {
    throw new UsageError(`invalid value ${JSON.stringify(options.resourceName)} for --leader-elect-resource-name: expected a Lease name: ${OBJECT_NAME_RULE}`);
  }
  if (!isNamespaceName(options.resourceNamespace)) {
    throw new UsageError(`invalid value ${JSON.stringify(options.resourceNamespace)} for --leader-elect-resource-namespace: expected a namespace: ${NAMESPACE_RULE}`);
  }
}
