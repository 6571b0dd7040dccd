// apiVersion + kind → the resource to call and whether it is namespaced, from discovery
// (kube-controller-manager's RESTMapper). References may name any version of a group; reading
// metadata works through any served version, so the one discovery chose for the kind is used
// (the group's preferred version when it serves the kind).
import type { ApiResource, PreferredResources } from "../../pkg/kube/discovery.ts";
import { apiVersionOf, groupOf } from "../../pkg/kube/gvr.ts";

/** The reference's type is not served (yet): discovery may learn it at its next refresh, so callers retry. */
export class RestMappingError extends Error {
  override readonly name = "RestMappingError";
}

export class RestMapper {
  private byGroupKind = new Map<string, ApiResource>();

  /** Takes the mappings of one discovery; groups whose discovery failed keep the mappings they had. */
  update(discovered: PreferredResources): void {
    const kept = [...this.byGroupKind.values()].filter((resource) => discovered.failed.has(apiVersionOf(resource)));
    this.byGroupKind = new Map([...kept, ...discovered.resources].map((resource) => [groupKindKey(resource.group, resource.kind), resource]));
  }

  /** Throws RestMappingError for a type discovery does not know. */
  resourceFor(apiVersion: string, kind: string): ApiResource {
    const resource = this.knownResourceFor(apiVersion, kind);
    if (!resource) throw new RestMappingError(`no resource of kind ${JSON.stringify(kind)} is served in API group version ${JSON.stringify(apiVersion)}`);
    return resource;
  }

  knownResourceFor(apiVersion: string, kind: string): ApiResource | undefined {
    return this.byGroupKind.get(groupKindKey(groupOf(apiVersion), kind));
  }
}

function groupKindKey(group: string, kind: string): string {
  return `${kind}.${group}`;
}
