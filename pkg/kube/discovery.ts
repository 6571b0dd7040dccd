// What the API server serves: groups, versions, resources and their verbs. The garbage
// collector rebuilds its monitors from `serverPreferredResources` every 30 s.
import type { GroupVersionResource } from "./gvr.ts";
import type { RestClient } from "./rest-client.ts";

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  platform?: string;
}

export interface ApiGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion?: { groupVersion: string; version: string };
}

export interface ApiResource extends GroupVersionResource {
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
}

export interface PreferredResources {
  resources: ApiResource[];
  /** Group versions whose discovery failed (e.g. an unavailable aggregated API), with the error. */
  failed: Map<string, Error>;
}

interface ApiResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[]; shortNames?: string[] }[];
}

export class DiscoveryClient {
  constructor(private readonly rest: RestClient) {}

  serverVersion(signal?: AbortSignal): Promise<ServerVersion> {
    return this.rest.request<ServerVersion>({ method: "GET", path: "/version", ...(signal ? { signal } : {}) });
  }

  /** The core group ("") followed by every named group. */
  async serverGroups(): Promise<ApiGroup[]> {
    const [core, named] = await Promise.all([
      this.rest.request<{ versions: string[] }>({ method: "GET", path: "/api" }),
      this.rest.request<{ groups: ApiGroup[] }>({ method: "GET", path: "/apis" }),
    ]);
    const coreVersions = core.versions.map((v) => ({ groupVersion: v, version: v }));
    return [{ name: "", versions: coreVersions, ...(coreVersions[0] ? { preferredVersion: coreVersions[0] } : {}) }, ...named.groups];
  }

  /** Top-level resources (no subresources such as pods/status) of one group version, e.g. "apps/v1" or "v1". */
  async serverResourcesForGroupVersion(groupVersion: string): Promise<ApiResource[]> {
    const path = groupVersion.includes("/") ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
    const list = await this.rest.request<ApiResourceList>({ method: "GET", path });
    const [group, version] = groupVersion.includes("/") ? groupVersion.split("/") as [string, string] : ["", groupVersion];
    return list.resources
      .filter((r) => !r.name.includes("/"))
      .map((r) => ({
        group,
        version,
        resource: r.name,
        kind: r.kind,
        namespaced: r.namespaced,
        verbs: r.verbs,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      }));
  }

  /**
   * One version of each resource of every group (client-go's ServerPreferredResources): every
   * served version is read, a resource is taken from its group's preferred version when that
   * serves it and otherwise from the first version listed that does, so a kind served only in
   * an older version is found too. One failing group version does not fail the rest.
   */
  async serverPreferredResources(): Promise<PreferredResources> {
    const groups = await this.serverGroups();
    const failed = new Map<string, Error>();
    const versions = groups.flatMap((group) => group.versions.map((version) => ({ group, version })));
    const lists = await Promise.all(
      versions.map(async ({ version }) => {
        try {
          return await this.serverResourcesForGroupVersion(version.groupVersion);
        } catch (err) {
          failed.set(version.groupVersion, err instanceof Error ? err : new Error(String(err)));
          return [];
        }
      }),
    );
    const chosen = new Map<string, ApiResource>();
    versions.forEach(({ group, version }, i) => {
      const preferred = version.version === (group.preferredVersion?.version ?? group.versions[0]?.version);
      for (const resource of lists[i] ?? []) {
        const groupResource = `${resource.resource}.${resource.group}`;
        if (preferred || !chosen.has(groupResource)) chosen.set(groupResource, resource);
      }
    });
    return { resources: [...chosen.values()], failed };
  }
}

/** Keeps the resources that carry every one of `verbs`, e.g. ["list", "watch", "delete"]. */
export function withVerbs(resources: ApiResource[], verbs: string[]): ApiResource[] {
  return resources.filter((r) => verbs.every((v) => r.verbs.includes(v)));
}
