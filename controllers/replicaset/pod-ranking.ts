// Which Pods a ReplicaSet deletes first when it scales down: kube-controller-manager's
// ActivePodsWithRanks order, with PodDeletionCost (beta, on by default) and the logarithmic age
// comparison (always on: 1.37 removed the LogarithmicScaleDown gate), so Pods that are cheapest
// to lose go first.
import type { V1Pod } from "@kubernetes/client-node";
import type { Wire } from "../../pkg/kube/objects.ts";
import { isPodActive, isPodReady, podReadySince } from "./pod-state.ts";

type Pod = Wire<V1Pod>;

export const podDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost";

/**
 * The first `count` of `activePods` in deletion order. `relatedPods` are the Pods of every
 * ReplicaSet with the same controller (a Deployment's old and new ReplicaSets): a Pod sharing its
 * node with more of them goes earlier. `now` (epoch ms) anchors the logarithmic age comparison.
 */
export function podsToDelete(activePods: readonly Pod[], relatedPods: readonly Pod[], count: number, now: number): Pod[] {
  // Nothing to choose when every Pod goes.
  if (count >= activePods.length) return activePods.slice(0, count);
  const ranks = relatedPodsOnSameNode(activePods, relatedPods);
  return activePods
    .map((pod, index) => ({ pod, rank: ranks[index] ?? 0 }))
    .sort((a, b) => compareForDeletion(a, b, now))
    .slice(0, count)
    .map(({ pod }) => pod);
}

export interface RankedPod {
  pod: Pod;
  /** Active related Pods on the same node (the unassigned ones count as one "node"). */
  rank: number;
}

/** For each Pod, how many active related Pods share its node. */
export function relatedPodsOnSameNode(pods: readonly Pod[], relatedPods: readonly Pod[]): number[] {
  const podsOnNode = new Map<string, number>();
  for (const pod of relatedPods) {
    if (!isPodActive(pod)) continue;
    const node = nodeOf(pod);
    podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
  }
  return pods.map((pod) => podsOnNode.get(nodeOf(pod)) ?? 0);
}

/** Negative when `a` should be deleted before `b`: the first rule that tells them apart decides. */
export function compareForDeletion(a: RankedPod, b: RankedPod, now: number): number {
  const [podA, podB] = [a.pod, b.pod];
  // 1. Unassigned before assigned.
  const [nodeA, nodeB] = [nodeOf(podA), nodeOf(podB)];
  if (nodeA !== nodeB && (nodeA === "" || nodeB === "")) return nodeA === "" ? -1 : 1;
  // 2. Pending before Unknown before Running.
  const phaseOrder = phaseOrdinal(podA) - phaseOrdinal(podB);
  if (phaseOrder !== 0) return phaseOrder;
  // 3. Not ready before ready.
  const [readyA, readyB] = [isPodReady(podA), isPodReady(podB)];
  if (readyA !== readyB) return readyA ? 1 : -1;
  // 4. Lower deletion cost first.
  const costOrder = podDeletionCost(podA) - podDeletionCost(podB);
  if (costOrder !== 0) return Math.sign(costOrder);
  // 5. More related Pods on the same node first.
  if (a.rank !== b.rank) return b.rank - a.rank;
  // 6. Both ready: ready for less time first.
  if (readyA && readyB) {
    const [sinceA, sinceB] = [podReadySince(podA), podReadySince(podB)];
    if (sinceA !== sinceB) return newerFirst(sinceA, sinceB, podA, podB, now);
  }
  // 7. More container restarts first.
  const restartOrder = compareRestarts(podA, podB);
  if (restartOrder !== 0) return restartOrder;
  // 8. Newer first.
  const [createdA, createdB] = [creationTime(podA), creationTime(podB)];
  if (createdA !== createdB) return newerFirst(createdA, createdB, podA, podB, now);
  return 0;
}

/**
 * The controller.kubernetes.io/pod-deletion-cost annotation, 0 when absent or invalid. Like the
 * API server's validation, only a plain int32 counts ("+1" and "007" do not).
 */
export function podDeletionCost(pod: Pod): number {
  const value = pod.metadata?.annotations?.[podDeletionCostAnnotation];
  if (value === undefined || !/^(0|[1-9]\d*|-\d+)$/.test(value)) return 0;
  const cost = Number(value);
  return Number.isInteger(cost) && cost >= -(2 ** 31) && cost < 2 ** 31 ? cost : 0;
}

function nodeOf(pod: Pod): string {
  return pod.spec?.nodeName ?? "";
}

const phaseOrdinals: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function phaseOrdinal(pod: Pod): number {
  return phaseOrdinals[pod.status?.phase ?? ""] ?? 0;
}

function creationTime(pod: Pod): number | undefined {
  const created = pod.metadata?.creationTimestamp;
  if (!created) return undefined;
  const ms = Date.parse(created);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Younger first, comparing ages on a log₂ scale so equally old Pods are picked pseudo-randomly
 * (by UID) rather than always the same ones. An unknown time counts as youngest.
 */
function newerFirst(timeA: number | undefined, timeB: number | undefined, podA: Pod, podB: Pod, now: number): number {
  if (timeA === undefined || timeB === undefined) return timeA === undefined ? -1 : 1;
  const rankDifference = logarithmicAge(timeA, now) - logarithmicAge(timeB, now);
  if (rankDifference !== 0) return Math.sign(rankDifference);
  const [uidA, uidB] = [podA.metadata?.uid ?? "", podB.metadata?.uid ?? ""];
  return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
}

/** ⌊log₂ of the age in nanoseconds⌋ (Go durations), -1 for a time not in the past. */
function logarithmicAge(time: number, now: number): number {
  const ageMs = now - time;
  return ageMs > 0 ? Math.floor(Math.log2(ageMs * 1e6)) : -1;
}

function compareRestarts(podA: Pod, podB: Pod): number {
  const [a, b] = [maxRestarts(podA), maxRestarts(podB)];
  if (a.regular !== b.regular) return b.regular - a.regular;
  return b.sidecar - a.sidecar;
}

/** The highest restart count among regular containers, and among sidecars (restartable init containers). */
function maxRestarts(pod: Pod): { regular: number; sidecar: number } {
  const regular = Math.max(0, ...(pod.status?.containerStatuses ?? []).map((status) => status.restartCount ?? 0));
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always").map((c) => c.name));
  const sidecar = Math.max(
    0,
    ...(pod.status?.initContainerStatuses ?? []).filter((status) => sidecars.has(status.name)).map((status) => status.restartCount ?? 0),
  );
  return { regular, sidecar };
}
