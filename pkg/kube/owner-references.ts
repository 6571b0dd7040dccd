// Reading ownerReferences the way apimachinery's metav1.GetControllerOf and IsControlledBy do.
import type { KubeObject, OwnerReference } from "./objects.ts";

/** The owner reference marked `controller: true`, if any (the API server allows at most one). */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/**
 * Field by field as stored, as upstream compares references (reflect.DeepEqual): a flag that is
 * unset differs from one set to false, so writing `blockOwnerDeletion: false` changes a reference.
 */
export function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.uid === b.uid &&
    a.name === b.name &&
    a.kind === b.kind &&
    a.apiVersion === b.apiVersion &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}

/** True when `owner` (by UID) is the controller of `obj`. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = controllerRefOf(obj);
  return ref !== undefined && ref.uid === owner.metadata?.uid;
}
