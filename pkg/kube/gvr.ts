// Identifies a resource collection on the API server: the unit the dynamic client,
// discovery and the informer factory work with. A resource also carries, at compile time only,
// the type of its objects, so `informers.forResource(resources.pods)` caches `Pod`s and a
// controller `for(resources.pods)` reconciles them, without a cast anywhere.
import type {
  EventsV1Event,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1ControllerRevision,
  V1CronJob,
  V1CustomResourceDefinition,
  V1DaemonSet,
  V1Deployment,
  V1EndpointSlice,
  V1Ingress,
  V1IngressClass,
  V1Job,
  V1Lease,
  V1LimitRange,
  V1Namespace,
  V1NetworkPolicy,
  V1Node,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
  V1ReplicaSet,
  V1ResourceQuota,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1StorageClass,
  V2HorizontalPodAutoscaler,
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

/** One row of the table of built-in resources: its names, and its client-node model at compile time only. */
interface BuiltinRow<Model> {
  /** Group, version, plural, kind and scope. */
  readonly type: Omit<ResourceType, typeof objectType>;
  /** Type information only; never set. */
  readonly model?: Model;
}

function row<Model>(group: string, version: string, resource: string, kind: string, scope: "namespaced" | "cluster"): BuiltinRow<Model> {
  return { type: { group, version, resource, kind, namespaced: scope === "namespaced" } };
}

/** The built-in resources, one row each: `resources` and its type BuiltinResources are made from this table. */
const builtinTable = {
  /** pods (v1). */
  pods: row<V1Pod>("", "v1", "pods", "Pod", "namespaced"),
  /** services (v1). */
  services: row<V1Service>("", "v1", "services", "Service", "namespaced"),
  /** configmaps (v1). */
  configMaps: row<V1ConfigMap>("", "v1", "configmaps", "ConfigMap", "namespaced"),
  /** secrets (v1). */
  secrets: row<V1Secret>("", "v1", "secrets", "Secret", "namespaced"),
  /** serviceaccounts (v1). */
  serviceAccounts: row<V1ServiceAccount>("", "v1", "serviceaccounts", "ServiceAccount", "namespaced"),
  /** persistentvolumeclaims (v1). */
  persistentVolumeClaims: row<V1PersistentVolumeClaim>("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", "namespaced"),
  /** limitranges (v1). */
  limitRanges: row<V1LimitRange>("", "v1", "limitranges", "LimitRange", "namespaced"),
  /** resourcequotas (v1). */
  resourceQuotas: row<V1ResourceQuota>("", "v1", "resourcequotas", "ResourceQuota", "namespaced"),
  /** namespaces (v1, cluster-scoped). */
  namespaces: row<V1Namespace>("", "v1", "namespaces", "Namespace", "cluster"),
  /** nodes (v1, cluster-scoped). */
  nodes: row<V1Node>("", "v1", "nodes", "Node", "cluster"),
  /** persistentvolumes (v1, cluster-scoped). */
  persistentVolumes: row<V1PersistentVolume>("", "v1", "persistentvolumes", "PersistentVolume", "cluster"),
  /** events (events.k8s.io/v1). */
  events: row<EventsV1Event>("events.k8s.io", "v1", "events", "Event", "namespaced"),
  /** deployments (apps/v1). */
  deployments: row<V1Deployment>("apps", "v1", "deployments", "Deployment", "namespaced"),
  /** replicasets (apps/v1). */
  replicaSets: row<V1ReplicaSet>("apps", "v1", "replicasets", "ReplicaSet", "namespaced"),
  /** statefulsets (apps/v1). */
  statefulSets: row<V1StatefulSet>("apps", "v1", "statefulsets", "StatefulSet", "namespaced"),
  /** daemonsets (apps/v1). */
  daemonSets: row<V1DaemonSet>("apps", "v1", "daemonsets", "DaemonSet", "namespaced"),
  /** controllerrevisions (apps/v1). */
  controllerRevisions: row<V1ControllerRevision>("apps", "v1", "controllerrevisions", "ControllerRevision", "namespaced"),
  /** jobs (batch/v1). */
  jobs: row<V1Job>("batch", "v1", "jobs", "Job", "namespaced"),
  /** cronjobs (batch/v1). */
  cronJobs: row<V1CronJob>("batch", "v1", "cronjobs", "CronJob", "namespaced"),
  /** horizontalpodautoscalers (autoscaling/v2). */
  horizontalPodAutoscalers: row<V2HorizontalPodAutoscaler>("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", "namespaced"),
  /** poddisruptionbudgets (policy/v1). */
  podDisruptionBudgets: row<V1PodDisruptionBudget>("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", "namespaced"),
  /** ingresses (networking.k8s.io/v1). */
  ingresses: row<V1Ingress>("networking.k8s.io", "v1", "ingresses", "Ingress", "namespaced"),
  /** networkpolicies (networking.k8s.io/v1). */
  networkPolicies: row<V1NetworkPolicy>("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", "namespaced"),
  /** ingressclasses (networking.k8s.io/v1, cluster-scoped). */
  ingressClasses: row<V1IngressClass>("networking.k8s.io", "v1", "ingressclasses", "IngressClass", "cluster"),
  /** endpointslices (discovery.k8s.io/v1). */
  endpointSlices: row<V1EndpointSlice>("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", "namespaced"),
  /** roles (rbac.authorization.k8s.io/v1). */
  roles: row<V1Role>("rbac.authorization.k8s.io", "v1", "roles", "Role", "namespaced"),
  /** rolebindings (rbac.authorization.k8s.io/v1). */
  roleBindings: row<V1RoleBinding>("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", "namespaced"),
  /** clusterroles (rbac.authorization.k8s.io/v1, cluster-scoped). */
  clusterRoles: row<V1ClusterRole>("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", "cluster"),
  /** clusterrolebindings (rbac.authorization.k8s.io/v1, cluster-scoped). */
  clusterRoleBindings: row<V1ClusterRoleBinding>("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", "cluster"),
  /** storageclasses (storage.k8s.io/v1, cluster-scoped). */
  storageClasses: row<V1StorageClass>("storage.k8s.io", "v1", "storageclasses", "StorageClass", "cluster"),
  /** leases (coordination.k8s.io/v1). */
  leases: row<V1Lease>("coordination.k8s.io", "v1", "leases", "Lease", "namespaced"),
  /** customresourcedefinitions (apiextensions.k8s.io/v1, cluster-scoped). */
  customResourceDefinitions: row<V1CustomResourceDefinition>("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", "cluster"),
};

/** The client-node model of a row of the table. */
type ModelOf<Row> = Row extends BuiltinRow<infer Model> ? Model : never;

/**
 * The built-in resources, each typed with client-node's model as it arrives on the wire (`Wire<V1Pod>`:
 * timestamps as strings), e.g. `resources.jobs: ResourceType<Wire<V1Job>>`.
 */
export type BuiltinResources = { readonly [Name in keyof typeof builtinTable]: ResourceType<Wire<ModelOf<(typeof builtinTable)[Name]>>> };

/**
 * Built-in resources, each typed with its object: `controller("x").for(resources.pods)` reconciles `Wire<V1Pod>`s.
 * For any other resource, declare one with `resourceType`.
 */
// fromEntries forgets the names; they are the table's, so the type is BuiltinResources.
export const resources = Object.fromEntries(Object.entries(builtinTable).map(([name, { type }]) => [name, resourceType(type)])) as BuiltinResources;
