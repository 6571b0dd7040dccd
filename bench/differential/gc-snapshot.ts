// What a garbage-collector case left behind on one control plane, as sorted lines that compare
// across control planes: every surviving object of the case by kind, namespace ("a", "b" or none)
// and incarnation, whether it is being deleted, its finalizers and its ownerReferences (owners by
// incarnation, with their controller and blockOwnerDeletion flags).
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { KubeObject, OwnerReference } from "../../pkg/kube/objects.ts";
import type { CaseScope } from "./case-scope.ts";
import { gcKinds } from "./gc-case.ts";
import type { Incarnations } from "./incarnations.ts";

export async function gcSnapshot(client: KubeClient, scope: CaseScope, incarnations: Incarnations): Promise<string[]> {
  const lists = await Promise.all(
    Object.values(gcKinds).map((type) => client.dynamic.resource(type).list({ labelSelector: scope.labelSelector })),
  );
  return lists
    .flatMap((list) => list.items)
    .map((object) => objectLine(object, scope, incarnations))
    .sort();
}

function objectLine(object: KubeObject, scope: CaseScope, incarnations: Incarnations): string {
  const meta = object.metadata ?? {};
  const namespace = meta.namespace ? `${meta.namespace.slice(scope.namespace("").length)}/` : "";
  const owners = (meta.ownerReferences ?? []).map((ref) => ownerText(ref, incarnations)).sort();
  const finalizers = [...(meta.finalizers ?? [])].sort();
  return [
    `${object.kind} ${namespace}${incarnations.nameOf(meta.uid)}`,
    ...(meta.deletionTimestamp ? ["deleting"] : []),
    ...(finalizers.length > 0 ? [`finalizers=[${finalizers.join(",")}]`] : []),
    ...(owners.length > 0 ? [`owners=[${owners.join(", ")}]`] : []),
  ].join(" ");
}

/** "ConfigMap o1 → o1#1 controller block": the reference as written, and what it points to. */
export function ownerText(ref: OwnerReference, incarnations: Incarnations): string {
  const flags = [ref.controller ? "controller" : "", ref.blockOwnerDeletion ? "block" : ""].filter(Boolean);
  return [`${ref.kind} ${ref.name} → ${incarnations.nameOf(ref.uid)}`, ...flags].join(" ");
}
