// Identifies a resource collection on the API server: the unit the dynamic client,
// discovery and the informer factory work with.

export interface GroupVersionResource {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Plural resource name, e.g. "pods". */
  resource: string;
}

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
export interface ResourceType extends GroupVersionResource {
  kind: string;
  namespaced: boolean;
}

export const resources = {
  pods: { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true },
  configMaps: { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true },
  secrets: { group: "", version: "v1", resource: "secrets", kind: "Secret", namespaced: true },
  serviceAccounts: { group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  namespaces: { group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false },
  events: { group: "events.k8s.io", version: "v1", resource: "events", kind: "Event", namespaced: true },
  replicaSets: { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", namespaced: true },
  deployments: { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true },
  leases: { group: "coordination.k8s.io", version: "v1", resource: "leases", kind: "Lease", namespaced: true },
  customResourceDefinitions: {
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
} as const satisfies Record<string, ResourceType>;
