// The vocabulary of the delta queue: what happened to an object, and the tombstone left
// when a relist finds an object gone without the watch having reported its deletion.
import type { KubeObject } from "../kube/objects.ts";

/** Added/Updated/Deleted come from watch events, Replaced from a (re)list, Sync from a resync. */
export type DeltaType = "Added" | "Updated" | "Deleted" | "Replaced" | "Sync";

/** An object whose deletion was inferred, not observed: `obj` is its last known, possibly stale, state. */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

export type Delta<T extends KubeObject = KubeObject> =
  | { type: "Deleted"; object: T | DeletedFinalStateUnknown<T> }
  | { type: Exclude<DeltaType, "Deleted">; object: T };

/** The object an onDelete handler got, unwrapped from its tombstone if it has one. */
export function finalStateOf<T extends KubeObject>(deleted: T | DeletedFinalStateUnknown<T>): T {
  return deleted instanceof DeletedFinalStateUnknown ? deleted.obj : deleted;
}
