// A ReplicaSet's status as kube-controller-manager computes and writes it (replica_set_utils.go):
// counts from the owned Pods (terminating ones included, KEP-3973), the ReplicaFailure condition
// while creating or deleting fails, and no write at all when nothing changed.
import type { V1Pod, V1ReplicaSet, V1ReplicaSetCondition, V1ReplicaSetStatus } from "@kubernetes/client-node";
import type { Logger } from "../../pkg/log/logger.ts";
import type { ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import type { Wire } from "../../pkg/kube/objects.ts";
import { failureMessage } from "./pod-control.ts";
import { isPodAvailable, isPodReady } from "./pod-state.ts";
import { formatTime } from "../../pkg/kube/micro-time.ts";

type Pod = Wire<V1Pod>;
type ReplicaSet = Wire<V1ReplicaSet>;
export type ReplicaSetStatus = Wire<V1ReplicaSetStatus>;
type Condition = Wire<V1ReplicaSetCondition>;

export const replicaFailureCondition = "ReplicaFailure";

/** The status write is retried once, after re-reading the ReplicaSet (statusUpdateRetries). */
const statusUpdateRetries = 1;

export interface StatusInputs {
  /** Active Pods the ReplicaSet owns. */
  activePods: readonly Pod[];
  /** Owned Pods being deleted but not finished: status.terminatingReplicas. */
  terminatingPods: readonly Pod[];
  /** Why creating or deleting Pods failed in this sync, if it did. */
  manageError: unknown;
  now: number;
}

export function calculateStatus(rs: ReplicaSet, inputs: StatusInputs): ReplicaSetStatus {
  const { activePods, terminatingPods, manageError, now } = inputs;
  const current = rs.status ?? { replicas: 0 };
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  // Fully labelled: the Pod carries every template label (and maybe more).
  const templateLabels = Object.entries(rs.spec?.template?.metadata?.labels ?? {});
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of activePods) {
    if (templateLabels.every(([key, value]) => pod.metadata?.labels?.[key] === value)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
    }
  }
  return {
    ...current,
    replicas: activePods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    terminatingReplicas: terminatingPods.length,
    conditions: failureConditions(rs, current.conditions, activePods.length, manageError, now),
  };
}

/**
 * Adds ReplicaFailure on a failed sync (keeping an existing one, so its time and message stay those of
 * the first failure) and removes it after a successful one.
 */
function failureConditions(
  rs: ReplicaSet,
  conditions: Condition[] | undefined,
  activeCount: number,
  manageError: unknown,
  now: number,
): Condition[] | undefined {
  const existing = conditions?.find((condition) => condition.type === replicaFailureCondition);
  if (manageError !== undefined && !existing) {
    const diff = activeCount - (rs.spec?.replicas ?? 1);
    const reason = diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "";
    const failure: Condition = {
      type: replicaFailureCondition,
      status: "True",
      reason,
      message: failureMessage(manageError),
      lastTransitionTime: formatTime(now),
    };
    return [...(conditions ?? []), failure];
  }
  if (manageError === undefined && existing) {
    const rest = (conditions ?? []).filter((condition) => condition.type !== replicaFailureCondition);
    return rest.length > 0 ? rest : undefined;
  }
  return conditions;
}

/** True when writing `next` would change nothing (the steady state: no request at all). */
export function statusUnchanged(rs: ReplicaSet, next: ReplicaSetStatus): boolean {
  const current = rs.status ?? { replicas: 0 };
  return (
    (current.replicas ?? 0) === next.replicas &&
    (current.fullyLabeledReplicas ?? 0) === (next.fullyLabeledReplicas ?? 0) &&
    (current.readyReplicas ?? 0) === (next.readyReplicas ?? 0) &&
    (current.availableReplicas ?? 0) === (next.availableReplicas ?? 0) &&
    current.terminatingReplicas === next.terminatingReplicas &&
    (rs.metadata?.generation ?? 0) === (current.observedGeneration ?? 0) &&
    JSON.stringify(current.conditions ?? []) === JSON.stringify(next.conditions ?? [])
  );
}

/**
 * Writes `next` through the status subresource unless nothing changed, recording the generation it
 * was computed from; on failure re-reads the ReplicaSet and tries once more. Returns the stored
 * object, or undefined when there was nothing to write.
 */
export async function writeStatus(
  client: ResourceClient<ReplicaSet>,
  rs: ReplicaSet,
  next: ReplicaSetStatus,
  logger: Logger,
): Promise<ReplicaSet | undefined> {
  if (statusUnchanged(rs, next)) return undefined;
  const status = { ...next, observedGeneration: rs.metadata?.generation ?? 0 };
  let target = rs;
  for (let attempt = 0; ; attempt++) {
    logger.debug(
      { replicaSet: `${rs.metadata?.namespace}/${rs.metadata?.name}`, from: target.status, to: status },
      "updating ReplicaSet status",
    );
    try {
      return await client.updateStatus({ ...target, status });
    } catch (err) {
      if (attempt >= statusUpdateRetries) throw err;
    }
    // A failed GET makes the counts untrustworthy; its error says more than the update's.
    target = await client.get(rs.metadata?.name ?? "");
  }
}
