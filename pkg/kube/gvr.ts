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

export const resources = {
  pods: { group: "", version: "v1", resource: "pods" },
  configMaps: { group: "", version: "v1", resource: "configmaps" },
  secrets: { group: "", version: "v1", resource: "secrets" },
  namespaces: { group: "", version: "v1", resource: "namespaces" },
  events: { group: "events.k8s.io", version: "v1", resource: "events" },
  replicaSets: { group: "apps", version: "v1", resource: "replicasets" },
  leases: { group: "coordination.k8s.io", version: "v1", resource: "leases" },
  customResourceDefinitions: { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions" },
} as const satisfies Record<string, GroupVersionResource>;
