// Reading and rewriting ownerReferences and deletion finalizers: the diff the graph builder
// needs, and the patches the workers send.
import type { ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";
import { sameOwnerReference } from "../../pkg/kube/owner-references.ts";

/** Set by the API server on a foreground deletion: the object waits for its blocking dependents. */
export const foregroundDeletionFinalizer = "foregroundDeletion";
/** Set by the API server on an orphaning deletion: the garbage collector detaches the dependents first. */
export const orphanFinalizer = "orphan";

export function isBeingDeleted(meta: ObjectMeta | undefined): boolean {
  return Boolean(meta?.deletionTimestamp);
}

export interface ChangedReference {
  before: OwnerReference;
  after: OwnerReference;
}

export interface ReferencesDiff {
  added: OwnerReference[];
  removed: OwnerReference[];
  changed: ChangedReference[];
}

/** References are matched by UID; one whose other fields changed is `changed`. */
export function referencesDiff(before: readonly OwnerReference[], after: readonly OwnerReference[]): ReferencesDiff {
  const beforeByUid = new Map(before.map((ref) => [ref.uid, ref]));
  const diff: ReferencesDiff = { added: [], removed: [], changed: [] };
  for (const ref of after) {
    const old = beforeByUid.get(ref.uid);
    if (!old) diff.added.push(ref);
    else if (!sameOwnerReference(old, ref)) diff.changed.push({ before: old, after: ref });
    beforeByUid.delete(ref.uid);
  }
  diff.removed.push(...beforeByUid.values());
  return diff;
}

export function sameReferences(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return a.length === b.length && a.every((ref, i) => sameOwnerReference(ref, b[i] as OwnerReference));
}

/**
 * Strategic merge patch deleting the references to `ownerUids` (ownerReferences merge by uid).
 * It needs no current state; the object's own UID in it makes the API server refuse a recreated object.
 */
export function removeReferencesStrategicPatch(uid: string, ownerUids: readonly string[]): unknown {
  return { metadata: { uid, ownerReferences: ownerUids.map((ownerUid) => ({ $patch: "delete", uid: ownerUid })) } };
}

/** Strategic merge patch clearing blockOwnerDeletion on every reference that has it. */
export function unblockReferencesStrategicPatch(uid: string, owners: readonly OwnerReference[]): unknown {
  const blocking = owners.filter((ref) => ref.blockOwnerDeletion === true).map((ref) => ({ ...ref, blockOwnerDeletion: false }));
  return { metadata: { uid, ownerReferences: blocking } };
}

/**
 * JSON merge patch replacing the whole list, for resources without strategic merge (custom
 * resources): valid only at `resourceVersion`, which the API server checks.
 */
export function referencesMergePatch(meta: ObjectMeta, ownerReferences: readonly OwnerReference[]): unknown {
  return { metadata: { uid: meta.uid, resourceVersion: meta.resourceVersion, ownerReferences } };
}

export function withoutReferences(owners: readonly OwnerReference[], ownerUids: readonly string[]): OwnerReference[] {
  return owners.filter((ref) => !ownerUids.includes(ref.uid));
}

/**
 * The list a merge patch writes to unblock an object: every reference with blockOwnerDeletion
 * false, set or not before, as kube-controller-manager's merge patch writes it (so the patch
 * changes an object whose references only lacked the flag).
 */
export function unblocked(owners: readonly OwnerReference[]): OwnerReference[] {
  return owners.map((ref) => ({ ...ref, blockOwnerDeletion: false }));
}

/** JSON merge patch dropping one finalizer, valid only at the object's current resourceVersion. */
export function removeFinalizerMergePatch(meta: ObjectMeta, finalizer: string): unknown {
  return {
    metadata: { uid: meta.uid, resourceVersion: meta.resourceVersion, finalizers: (meta.finalizers ?? []).filter((f) => f !== finalizer) },
  };
}
