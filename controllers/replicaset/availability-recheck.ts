// When a ReplicaSet with minReadySeconds has to be synced again: no event marks the moment a ready
// Pod becomes available, so the sync that leaves ready and available apart schedules the next
// look itself (kube-controller-manager's FindMinNextPodAvailabilityCheck, since 1.34).
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import type { Clock } from "../../pkg/clock/clock.ts";
import type { Wire } from "../../pkg/kube/objects.ts";
import { msUntilPodAvailable } from "./pod-state.ts";

type Pod = Wire<V1Pod>;
type ReplicaSet = Wire<V1ReplicaSet>;

/**
 * Milliseconds until the next sync should run, or undefined when none is needed. `rs` carries the
 * status as written; `statusNow` is the time that status was computed at, so a Pod that was not
 * available then is not skipped even if it is by now.
 */
export function availabilityRecheckDelay(rs: ReplicaSet, activePods: readonly Pod[], statusNow: number, clock: Clock): number | undefined {
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  if (minReadySeconds <= 0 || (rs.status?.readyReplicas ?? 0) === (rs.status?.availableReplicas ?? 0)) return undefined;
  let earliest: { pod: Pod; waitMs: number } | undefined;
  for (const pod of activePods) {
    const waitMs = msUntilPodAvailable(pod, minReadySeconds, statusNow);
    if (waitMs !== undefined && (earliest === undefined || waitMs < earliest.waitMs)) earliest = { pod, waitMs };
  }
  // No Pod has a moment to wait for (a ready Pod without a ready time): look again after minReadySeconds anyway.
  if (earliest === undefined) return minReadySeconds * 1000;
  // The sync took time since statusNow: wait only for what is left, or look at once if the moment has passed.
  return msUntilPodAvailable(earliest.pod, minReadySeconds, clock.now()) ?? 0;
}
