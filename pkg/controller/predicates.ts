// Filters on the events of a watched resource (controller-runtime's predicates): an event some
// predicate rejects queues nothing. Each kind of event is let through unless a predicate says no.
import type { KubeObject } from "../kube/objects.ts";

/** A filter on a watched resource's events: each method returns false to drop that event; a missing one lets all through. */
export interface Predicate<T extends KubeObject = KubeObject> {
  /** An object appeared (or was in the initial list). */
  add?(obj: T): boolean;
  /** An object changed, or a resync replayed it (then `oldObj` and `newObj` have the same resourceVersion). */
  update?(oldObj: T, newObj: T): boolean;
  /** An object is gone; `obj` is its last known state. */
  delete?(obj: T): boolean;
}

/** Only updates that change the spec (metadata.generation) — plus creations and deletions. */
export const generationChanged: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.generation !== newObj.metadata?.generation || oldObj.metadata?.uid !== newObj.metadata?.uid,
};

/** Drops the periodic resyncs, which redeliver an unchanged object. */
export const resourceVersionChanged: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion,
};

/** Only updates that change labels or annotations (or the object's identity). */
export const labelsOrAnnotationsChanged: Predicate = {
  update: (oldObj, newObj) =>
    oldObj.metadata?.uid !== newObj.metadata?.uid ||
    JSON.stringify(oldObj.metadata?.labels ?? {}) !== JSON.stringify(newObj.metadata?.labels ?? {}) ||
    JSON.stringify(oldObj.metadata?.annotations ?? {}) !== JSON.stringify(newObj.metadata?.annotations ?? {}),
};

/** Lets an event through when any of `predicates` does (controller-runtime's predicate.Or); the list itself is their and. */
export function or<T extends KubeObject>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    add: (obj) => predicates.some((predicate) => passes([predicate], "add", obj)),
    update: (oldObj, newObj) => predicates.some((predicate) => passes([predicate], "update", oldObj, newObj)),
    delete: (obj) => predicates.some((predicate) => passes([predicate], "delete", obj)),
  };
}

/** Lets through what `predicate` drops and drops what it lets through, a missing method included (predicate.Not). */
export function not<T extends KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    add: (obj) => !passes([predicate], "add", obj),
    update: (oldObj, newObj) => !passes([predicate], "update", oldObj, newObj),
    delete: (obj) => !passes([predicate], "delete", obj),
  };
}

export function passes<T extends KubeObject>(predicates: readonly Predicate<T>[], event: "add" | "delete", obj: T): boolean;
export function passes<T extends KubeObject>(predicates: readonly Predicate<T>[], event: "update", oldObj: T, newObj: T): boolean;
export function passes<T extends KubeObject>(predicates: readonly Predicate<T>[], event: "add" | "update" | "delete", first: T, second?: T): boolean {
  return predicates.every((predicate) => {
    if (event === "update") return predicate.update?.(first, second ?? first) ?? true;
    return predicate[event]?.(first) ?? true;
  });
}
