// What the ReplicaSet controller reads from a Pod's status, as k8s.io/kubernetes pkg/api/v1/pod
// and pkg/controller (IsPodActive, IsPodTerminating) read it.
import type { V1Pod, V1PodCondition } from "@kubernetes/client-node";
import type { Wire } from "../../pkg/kube/objects.ts";

type Pod = Wire<V1Pod>;

function podReadyCondition(pod: Pod): Wire<V1PodCondition> | undefined {
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

/** Ready for `minReadySeconds` or longer (the moment it reaches them counts, since 1.34). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = podReadySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 <= now;
}

/**
 * Milliseconds from `now` until the ready Pod becomes available; undefined when it is not ready,
 * has no time to wait for (no minReadySeconds, no known ready time) or is available already.
 */
export function msUntilPodAvailable(pod: Pod, minReadySeconds: number, now: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  const since = podReadySince(pod);
  if (since === undefined) return undefined;
  const wait = since + minReadySeconds * 1000 - now;
  return wait > 0 ? wait : undefined;
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
