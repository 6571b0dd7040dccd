// What the ReplicaSet controller reads from a Pod's status, as k8s.io/kubernetes pkg/api/v1/pod
// and pkg/controller (IsPodActive, IsPodTerminating) read it.
import type { V1Pod, V1PodCondition } from "@kubernetes/client-node";
import type { Wire } from "../../pkg/kube/objects.ts";

type Pod = Wire<V1Pod>;

export function podReadyCondition(pod: Pod): Wire<V1PodCondition> | undefined {
  return pod.status?.conditions?.find((condition) => condition.type === "Ready");
}

export function isPodReady(pod: Pod): boolean {
  return podReadyCondition(pod)?.status === "True";
}

/** When the Pod last became ready (epoch ms), or undefined when it is not ready or the time is unknown. */
export function podReadySince(pod: Pod): number | undefined {
  const condition = podReadyCondition(pod);
  if (condition?.status !== "True" || !condition.lastTransitionTime) return undefined;
  const since = Date.parse(condition.lastTransitionTime);
  return Number.isNaN(since) ? undefined : since;
}

/** Ready for at least `minReadySeconds` (strictly longer, as upstream compares with Before). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = podReadySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 < now;
}

function isTerminalPhase(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

/** Counts toward a ReplicaSet's replicas: not finished and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  return !isTerminalPhase(pod) && !pod.metadata?.deletionTimestamp;
}

/** Being deleted but still running: counted in status.terminatingReplicas. */
export function isPodTerminating(pod: Pod): boolean {
  return !isTerminalPhase(pod) && !!pod.metadata?.deletionTimestamp;
}

/** `namespace/name`, the key deletions are expected under. */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}
