// What an informer calls when its cache changes (client-go's ResourceEventHandler).
import type { KubeObject } from "../kube/objects.ts";
import type { DeletedFinalStateUnknown } from "./deltas.ts";

/** Every callback may be async; an informer awaits it before giving that handler its next event. */
export interface ResourceEventHandler<T extends KubeObject> {
  /** `isInInitialList`: the object was there at the first list (or when the handler was added), not created since. */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** Also called on resync with the cached object as both arguments: see isResync. */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** Gets a DeletedFinalStateUnknown when the deletion was inferred from a relist. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/** True when an onUpdate is a periodic resync (or a relist without change), not a real change: same resourceVersion. */
export function isResync(oldObj: KubeObject, newObj: KubeObject): boolean {
  return oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion;
}
