// What a builder's `watches` map function is given: the flags, and the primary objects' cache.
import type { KubeObject } from "../kube/objects.ts";
import type { FlagValues } from "../options/flag-values.ts";

/** What a `watches` map function gets besides the changed object. */
export interface MapContext {
  /** The controller's flag values. */
  values: FlagValues;
  /** The cached primary objects (none before the primary's cache exists). */
  primaryObjects(): KubeObject[];
}

/** Keys to reconcile because `obj` changed: "namespace/name", or "name" for cluster-scoped objects. */
export type MapFunc<U extends KubeObject> = (obj: U, context: MapContext) => Iterable<string>;
