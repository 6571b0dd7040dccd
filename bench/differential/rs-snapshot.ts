// What a ReplicaSet case left behind on one control plane, as sorted lines that compare across
// control planes: each ReplicaSet (incarnation, deletion, spec.replicas, generation and status
// counters) and each Pod (the test's by name, the controller's as "(generated)", since their
// names are random) with labels, deletion cost, deletion, finalizers and owners by incarnation.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { podDeletionCostAnnotation } from "../../controllers/replicaset/pod-ranking.ts";
import type { Pod, ReplicaSet } from "../../test/replicaset/replicaset-fixture.ts";
import { ownerText } from "./gc-snapshot.ts";
import type { Incarnations } from "./incarnations.ts";

export async function rsSnapshot(client: KubeClient, namespace: string, incarnations: Incarnations): Promise<string[]> {
  const [replicaSets, pods] = await Promise.all([
    client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).list({}),
    client.dynamic.resource<Pod>(resources.pods, namespace).list({}),
  ]);
  return [...replicaSets.items.map((rs) => replicaSetLine(rs, incarnations)), ...pods.items.map((pod) => podLine(pod, incarnations))].sort();
}

function replicaSetLine(rs: ReplicaSet, incarnations: Incarnations): string {
  const status = rs.status;
  const counters = [
    `replicas=${status?.replicas ?? 0}`,
    `fullyLabeledReplicas=${status?.fullyLabeledReplicas ?? 0}`,
    `readyReplicas=${status?.readyReplicas ?? 0}`,
    `availableReplicas=${status?.availableReplicas ?? 0}`,
    ...(status?.terminatingReplicas === undefined ? [] : [`terminatingReplicas=${status.terminatingReplicas}`]),
    `observedGeneration=${status?.observedGeneration ?? 0}`,
    ...(status?.conditions ?? []).map((condition) => `condition ${condition.type}=${condition.status} (${condition.reason ?? ""})`),
  ];
  return [
    `ReplicaSet ${incarnations.nameOf(rs.metadata?.uid)}`,
    ...lifecycle(rs),
    `spec.replicas=${rs.spec?.replicas ?? 1} generation=${rs.metadata?.generation ?? 0}`,
    `status: ${counters.join(" ")}`,
  ].join(" ");
}

/** One Pod; the test's own Pods by name, the controller's as "(generated)". */
export function podLine(pod: Pod, incarnations: Incarnations): string {
  const meta = pod.metadata ?? {};
  const name = meta.generateName && meta.name?.startsWith(meta.generateName) ? "(generated)" : (meta.name ?? "");
  const labels = Object.entries(meta.labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  const cost = meta.annotations?.[podDeletionCostAnnotation];
  const owners = (meta.ownerReferences ?? []).map((ref) => ownerText(ref, incarnations)).sort();
  return [
    `Pod ${name} labels=${labels.join(",")}`,
    ...(cost === undefined ? [] : [`cost=${cost}`]),
    ...lifecycle(pod),
    ...(owners.length > 0 ? [`owners=[${owners.join(", ")}]`] : []),
  ].join(" ");
}

function lifecycle(object: KubeObject): string[] {
  const finalizers = [...(object.metadata?.finalizers ?? [])].sort();
  return [...(object.metadata?.deletionTimestamp ? ["deleting"] : []), ...(finalizers.length > 0 ? [`finalizers=[${finalizers.join(",")}]`] : [])];
}
