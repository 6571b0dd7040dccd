// Identifies a resource collection on the API server: the unit the dynamic client,
// discovery and the informer factory work with. A resource also carries, at compile time only,
// the type of its objects, so `informers.forResource(resources.pods)` caches `Pod`s and a
// controller `for(resources.pods)` reconciles them, without a cast anywhere.
import type {
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Deployment,
  V1Lease,
  V1Namespace,
  V1Pod,
  V1ReplicaSet,
  V1Secret,
  V1ServiceAccount,
  EventsV1Event,
} from "@kubernetes/client-node";
import type { KubeObject, Wire } from "./objects.ts";

/** Never present at run time: the key under which a resource names its object type. */
declare const objectType: unique symbol;

/**
 * A resource collection on the API server, e.g. `{ group: "apps", version: "v1", resource: "replicasets" }`.
 * `T` is the type of its objects, at compile time only.
 */
export interface GroupVersionResource<T extends KubeObject = KubeObject> {
  /** "" for the core group. */
  group: string;
  /** e.g. "v1", "v1beta1". */
  version: string;
  /** Plural resource name, e.g. "pods". */
  resource: string;
  /** Type information only; never set. */
  readonly [objectType]?: T;
}

/** The type of the objects a resource serves. */
export type ObjectOf<R> = R extends GroupVersionResource<infer T> ? T : never;

export function gvrString(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.version}.${gvr.group}` : `${gvr.resource}.${gvr.version}`;
}

/** "v1" for the core group, "apps/v1" otherwise: the apiVersion field of objects. */
export function apiVersionOf(gvr: Pick<GroupVersionResource, "group" | "version">): string {
  return gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
}

/** "apps/v1" → "apps"; "v1" (the core group) → "". */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** A resource with what a controller needs to relate objects to it: its kind (ownerReferences name kinds) and scope. */
export interface ResourceType<T extends KubeObject = KubeObject> extends GroupVersionResource<T> {
  /** The kind of its objects, e.g. "ReplicaSet". */
  kind: string;
  /** False for cluster-scoped resources (Namespace, CustomResourceDefinition). */
  namespaced: boolean;
}

/**
 * Declares a resource whose objects have type `T`, e.g. a custom resource:
 * `resourceType<Network>({ group: "samplecrd.k8s.io", version: "v1", resource: "networks", kind: "Network", namespaced: true })`.
 */
export function resourceType<T extends KubeObject>(resource: Omit<ResourceType, typeof objectType>): ResourceType<T> {
  return resource;
}

/**
 * The built-in resources kube-loom's own controllers use, typed with client-node's models as they arrive on the wire.
 * Declared rather than inferred, so the published declarations name `Wire<V1Pod>` instead of spelling the model out
 * (and a project compiled with exactOptionalPropertyTypes works the model out under its own settings).
 */
export interface BuiltinResources {
  /** pods (v1). */
  pods: ResourceType<Wire<V1Pod>>;
  /** configmaps (v1). */
  configMaps: ResourceType<Wire<V1ConfigMap>>;
  /** secrets (v1). */
  secrets: ResourceType<Wire<V1Secret>>;
  /** serviceaccounts (v1). */
  serviceAccounts: ResourceType<Wire<V1ServiceAccount>>;
  /** namespaces (v1, cluster-scoped). */
  namespaces: ResourceType<Wire<V1Namespace>>;
  /** events (events.k8s.io/v1). */
  events: ResourceType<Wire<EventsV1Event>>;
  /** replicasets (apps/v1). */
  replicaSets: ResourceType<Wire<V1ReplicaSet>>;
  /** deployments (apps/v1). */
  deployments: ResourceType<Wire<V1Deployment>>;
  /** leases (coordination.k8s.io/v1). */
  leases: ResourceType<Wire<V1Lease>>;
  /** customresourcedefinitions (apiextensions.k8s.io/v1, cluster-scoped). */
  customResourceDefinitions: ResourceType<Wire<V1CustomResourceDefinition>>;
}

/**
 * Built-in resources, each typed with its object: `controller("x").for(resources.pods)` reconciles `Wire<V1Pod>`s.
 * For any other resource, declare one with `resourceType`.
 */
export const resources: BuiltinResources = {
  pods: resourceType<Wire<V1Pod>>({ group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true }),
  configMaps: resourceType<Wire<V1ConfigMap>>({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true }),
  secrets: resourceType<Wire<V1Secret>>({ group: "", version: "v1", resource: "secrets", kind: "Secret", namespaced: true }),
  serviceAccounts: resourceType<Wire<V1ServiceAccount>>({ group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true }),
  namespaces: resourceType<Wire<V1Namespace>>({ group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false }),
  events: resourceType<Wire<EventsV1Event>>({ group: "events.k8s.io", version: "v1", resource: "events", kind: "Event", namespaced: true }),
  replicaSets: resourceType<Wire<V1ReplicaSet>>({ group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", namespaced: true }),
  deployments: resourceType<Wire<V1Deployment>>({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true }),
  leases: resourceType<Wire<V1Lease>>({ group: "coordination.k8s.io", version: "v1", resource: "leases", kind: "Lease", namespaced: true }),
  customResourceDefinitions: resourceType<Wire<V1CustomResourceDefinition>>({
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  }),
};
