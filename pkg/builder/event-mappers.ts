// How events of a watched resource become keys of the controller's own objects: the object's own
// key (the primary resource), its controller owner's key (owned resources), or whatever a
// user's map function says (any other resource).
import { finalStateOf } from "../informer/deltas.ts";
import type { ResourceEventHandler } from "../informer/event-handler.ts";
import { metaNamespaceKeyFunc } from "../informer/keys.ts";
import { groupOf, type ResourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import { controllerRefOf } from "../kube/owner-references.ts";
import type { FlagValues } from "../options/flag-values.ts";
import { passes, type Predicate } from "./predicates.ts";

/** What a map function may consult: the flags and the primary objects' cache. */
export interface MapContext {
  values: FlagValues;
  /** The cached primary objects (none before the primary's cache exists). */
  primaryObjects(): KubeObject[];
}

/** Keys to reconcile because `obj` changed; "namespace/name", or "name" for cluster-scoped objects. */
export type MapFunc<U extends KubeObject> = (obj: U, context: MapContext) => Iterable<string>;

/** Where mapped keys go. */
export interface KeyQueue {
  add(key: string): void;
  /** Reconciles `key` after `delayMs`, even if nothing changes meanwhile. */
  addAfter(key: string, delayMs: number): void;
}

/** Queues whatever `map` returns for each event that passes the predicates; an update queues for the old and the new state. */
export function mappingHandler<U extends KubeObject>(
  queue: KeyQueue,
  map: MapFunc<U>,
  predicates: readonly Predicate<U>[],
  context: MapContext,
): ResourceEventHandler<U> {
  const enqueue = (obj: U) => {
    for (const key of map(obj, context)) queue.add(key);
  };
  return {
    onAdd: (obj) => {
      if (passes(predicates, "add", obj)) enqueue(obj);
    },
    onUpdate: (oldObj, newObj) => {
      if (!passes(predicates, "update", oldObj, newObj)) return;
      enqueue(oldObj);
      enqueue(newObj);
    },
    onDelete: (deleted) => {
      const obj = finalStateOf(deleted);
      if (passes(predicates, "delete", obj)) enqueue(obj);
    },
  };
}

/** The object's own key. */
export function ownKey(obj: KubeObject): string[] {
  return [metaNamespaceKeyFunc(obj)];
}

/** Maps an owned object to the key of its controller owner, when that owner is of the `owner` type. */
export function controllerOwnerKey(owner: ResourceType): MapFunc<KubeObject> {
  return (obj) => {
    const ref = controllerRefOf(obj);
    if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return [];
    const namespace = obj.metadata?.namespace ?? "";
    // A namespaced owner shares its dependent's namespace; a cluster-scoped one has none.
    return [owner.namespaced ? `${namespace}/${ref.name}` : ref.name];
  };
}
