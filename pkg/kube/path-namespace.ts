// The namespace a request addresses, read from its path: `/api/v1/namespaces/<ns>/<resource>…` or
// `/apis/<group>/<version>/namespaces/<ns>/<resource>…`. A Namespace object itself
// (`/api/v1/namespaces/<name>`, its status or finalize) is cluster-scoped.
const namespacedPath = /^\/(?:api\/[^/]+|apis\/[^/]+\/[^/]+)\/namespaces\/([^/?]+)\/([^/?]+)/;

/** The namespace of a resource path; "" for cluster-scoped paths. */
export function namespaceOfPath(path: string): string {
  const match = namespacedPath.exec(path);
  if (!match) return "";
  const [, namespace, next] = match;
  // …/namespaces/<name>/status and …/finalize are the Namespace's own subresources.
  return next === "status" || next === "finalize" ? "" : decodeURIComponent(namespace!);
}
