// Reading ownerReferences the way apimachinery's metav1.GetControllerOf and IsControlledBy do.
import type { KubeObject, OwnerReference } from "./objects.ts";

/** The owner reference marked `controller: true`, if any (the API server allows at most one). */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/** True when `owner` (by UID) is the controller of `obj`. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = controllerRefOf(obj);
  return ref !== undefined && ref.uid === owner.metadata?.uid;
}
