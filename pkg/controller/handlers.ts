// Event handlers that turn a watched resource's events into keys of the controller's queue
// (controller-runtime's pkg/handler): the object's own key, its controller owner's key, or
// whatever a map function says; and the filter that drops the events predicates reject.
// As controller-runtime's handlers do with its priority queue, keys from an informer's initial list and from
// resyncs are queued at low priority, those from live changes at normal: see pkg/workqueue/priority.ts.
import { finalStateOf } from "../informer/deltas.ts";
import { isResync, type ResourceEventHandler } from "../informer/event-handler.ts";
import { metaNamespaceKeyFunc } from "../informer/keys.ts";
import { groupOf, type ResourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import { controllerRefOf } from "../kube/owner-references.ts";
import type { AddOptions, Priority } from "../workqueue/priority.ts";
import { passes, type Predicate } from "./predicates.ts";

/** Where keys go. */
export interface KeyQueue<K = string> {
  /** Default priority: "normal". */
  add(key: K, options?: AddOptions): void;
  /** Reconciles `key` after `delayMs`, even if nothing changes meanwhile. */
  addAfter(key: K, delayMs: number, options?: AddOptions): void;
}

/** An add from the initial list replays existing state: low; an object created since is a live change: normal. */
export function addPriority(isInInitialList: boolean): Priority {
  return isInInitialList ? "low" : "normal";
}

/** A resync (same resourceVersion) replays the cached object: low; a real change: normal. */
export function updatePriority(oldObj: KubeObject, newObj: KubeObject): Priority {
  return isResync(oldObj, newObj) ? "low" : "normal";
}

/** Queues the keys `keysOf` returns for each event; an update queues those of the old and of the new state, each once. */
export function enqueueMapped<U extends KubeObject>(queue: KeyQueue, keysOf: (obj: U) => Iterable<string>): ResourceEventHandler<U> {
  const enqueue = (keys: Iterable<string>, priority: Priority) => {
    for (const key of keys) queue.add(key, { priority });
  };
  return {
    onAdd: (obj, isInInitialList) => enqueue(keysOf(obj), addPriority(isInInitialList)),
    // One key added twice would be reconciled twice when a worker is waiting: the first add goes
    // straight to it, the second finds the key in process and queues it again.
    onUpdate: (oldObj, newObj) => enqueue(new Set([...keysOf(oldObj), ...keysOf(newObj)]), updatePriority(oldObj, newObj)),
    onDelete: (deleted) => enqueue(keysOf(finalStateOf(deleted)), "normal"),
  };
}

/** The object's own key. */
export function ownKey(obj: KubeObject): string[] {
  return [metaNamespaceKeyFunc(obj)];
}

/** The key of an object's controller owner, when that owner is of the `owner` type. */
export function controllerOwnerKey(owner: ResourceType): (obj: KubeObject) => string[] {
  return (obj) => {
    const ref = controllerRefOf(obj);
    if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return [];
    const namespace = obj.metadata?.namespace ?? "";
    // A namespaced owner shares its dependent's namespace; a cluster-scoped one has none.
    return [owner.namespaced ? `${namespace}/${ref.name}` : ref.name];
  };
}

/** `handler`, fed only the events every predicate lets through. */
export function filtered<U extends KubeObject>(handler: ResourceEventHandler<U>, predicates: readonly Predicate<U>[]): ResourceEventHandler<U> {
  if (predicates.length === 0) return handler;
  return {
    onAdd: (obj, isInInitialList) => {
      if (passes(predicates, "add", obj)) return handler.onAdd?.(obj, isInInitialList);
    },
    onUpdate: (oldObj, newObj) => {
      if (passes(predicates, "update", oldObj, newObj)) return handler.onUpdate?.(oldObj, newObj);
    },
    onDelete: (deleted) => {
      if (passes(predicates, "delete", finalStateOf(deleted))) return handler.onDelete?.(deleted);
    },
  };
}
