// What a builder's `watches` map function is given: the flags, and the primary objects' cache,
// read whole or through an index `for` declared (controller-runtime's IndexField + MatchingFields).
import type { KubeObject } from "../kube/objects.ts";
import type { FlagValues } from "../options/flag-values.ts";

/** What a `watches` map function gets besides the changed object; `P` is the primary's object type, `I` the names of its indexes. */
export interface MapContext<P extends KubeObject = KubeObject, I extends string = never> {
  /** The controller's flag values. */
  values: FlagValues;
  /** The cached primary objects (none before the primary's cache exists): a full scan. */
  primaryObjects(): P[];
  /**
   * The cached primary objects filed under `value` in an index declared by `for(resource, { indexers })`
   * (none before the primary's cache exists), e.g. the Deployments naming one ConfigMap.
   */
  primariesByIndex(index: I, value: string): P[];
}

/** Keys to reconcile because `obj` changed: "namespace/name", or "name" for cluster-scoped objects. */
export type MapFunc<U extends KubeObject, P extends KubeObject = KubeObject, I extends string = never> = (obj: U, context: MapContext<P, I>) => Iterable<string>;
