// What the API server serves: groups, versions, resources and their verbs. The garbage
// collector rebuilds its monitors from `serverPreferredResources` every 30 s. Like client-go, it
// asks for aggregated discovery first (everything in two requests, /api and /apis) and reads one
// document per group version only from a server that does not offer it.
import type { GroupVersionResource } from "./gvr.ts";
import type { RestClient } from "./rest-client.ts";

/** The API server's /version. */
export interface ServerVersion {
  /** e.g. "1". */
  major: string;
  /** e.g. "37"; some distributions append "+". */
  minor: string;
  /** e.g. "v1.37.2". */
  gitVersion: string;
  /** e.g. "linux/amd64". */
  platform?: string;
}

/** One API group and the versions it serves. */
export interface ApiGroup {
  /** "" for the core group. */
  name: string;
  /** Every served version. */
  versions: {
    /** e.g. "apps/v1"; "v1" in the core group. */
    groupVersion: string;
    /** e.g. "v1". */
    version: string;
  }[];
  /** The version the server prefers clients to use. */
  preferredVersion?: {
    /** e.g. "apps/v1". */
    groupVersion: string;
    /** e.g. "v1". */
    version: string;
  };
}

/** A resource as discovery describes it. */
export interface ApiResource extends GroupVersionResource {
  /** The kind of its objects. */
  kind: string;
  /** False for cluster-scoped resources. */
  namespaced: boolean;
  /** What may be done with it, e.g. ["get", "list", "watch", "delete"]. */
  verbs: string[];
  /** kubectl's abbreviations, e.g. ["po"]. */
  shortNames?: string[];
}

/** The result of `serverPreferredResources`. */
export interface PreferredResources {
  /** One version of every resource found. */
  resources: ApiResource[];
  /** Group versions whose discovery failed (e.g. an unavailable aggregated API), with the error. */
  failed: Map<string, Error>;
}

interface ApiResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[]; shortNames?: string[] }[];
}

/** Aggregated discovery (apidiscovery.k8s.io/v2, and v2beta1 of older servers): one group's versions in order of preference. */
interface ApiGroupDiscovery {
  metadata?: { name?: string };
  versions?: {
    version: string;
    resources?: { resource: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[]; shortNames?: string[] }[];
    /** "Stale": the API behind this version did not answer the server's last discovery. */
    freshness?: string;
  }[];
}

const aggregatedDiscoveryAccept = [
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
  "application/json",
].join(",");

/** A group version and the resources one discovery found in it, in the order of the group's preference. */
interface DiscoveredVersion {
  group: string;
  version: string;
  preferred: boolean;
  resources: ApiResource[];
}

/**
 * What the API server serves: its version, groups, and resources. Reached as `client.discovery`.
 * Every call asks the server; nothing is cached.
 *
 * @hideconstructor
 */
export class DiscoveryClient {
  constructor(private readonly rest: RestClient) {}

  /** GET /version. */
  serverVersion(signal?: AbortSignal): Promise<ServerVersion> {
    return this.rest.request<ServerVersion>({ method: "GET", path: "/version", ...(signal ? { signal } : {}) });
  }

  /** The core group ("") followed by every named group. */
  async serverGroups(): Promise<ApiGroup[]> {
    const [core, named] = await Promise.all([
      this.rest.request<CoreVersions>({ method: "GET", path: "/api" }),
      this.rest.request<GroupList>({ method: "GET", path: "/apis" }),
    ]);
    return groupsFrom(core, named);
  }

  /** Whether `gvr` is namespaced, as its group version's discovery says; throws when it is not served. */
  async isNamespaced(gvr: GroupVersionResource): Promise<boolean> {
    const groupVersion = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
    const found = (await this.serverResourcesForGroupVersion(groupVersion)).find((r) => r.resource === gvr.resource);
    if (!found) throw new Error(`${gvr.resource} is not served in ${groupVersion}`);
    return found.namespaced;
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
    const failed = new Map<string, Error>();
    const [core, named] = await Promise.all([this.discoveryDocument("/api"), this.discoveryDocument("/apis")]);
    const versions =
      core.aggregated && named.aggregated
        ? aggregatedVersions([...core.aggregated, ...named.aggregated], failed)
        : await this.versionsOneByOne(
            // Both in the old form (a server without aggregated discovery): read them as they came.
            core.legacy && named.legacy ? groupsFrom(core.legacy as CoreVersions, named.legacy as GroupList) : await this.serverGroups(),
            failed,
          );
    const chosen = new Map<string, ApiResource>();
    for (const { preferred, resources } of versions) {
      for (const resource of resources) {
        const groupResource = `${resource.resource}.${resource.group}`;
        if (preferred || !chosen.has(groupResource)) chosen.set(groupResource, resource);
      }
    }
    return { resources: [...chosen.values()], failed };
  }

  /**
   * /api or /apis, asked for in the aggregated form (every group, version and resource at once);
   * a server that does not offer it answers in the old form, which is kept for the old way.
   */
  private async discoveryDocument(path: string): Promise<{ aggregated?: ApiGroupDiscovery[]; legacy?: unknown }> {
    const response = await this.rest.send({ method: "GET", path, accept: aggregatedDiscoveryAccept });
    const body: unknown = JSON.parse(await response.text());
    if (/;\s*as=APIGroupDiscoveryList\b/.test(response.headers.get("content-type") ?? "")) return { aggregated: (body as { items?: ApiGroupDiscovery[] }).items ?? [] };
    return { legacy: body };
  }

  /** The old way: one request per group version. */
  private async versionsOneByOne(groups: ApiGroup[], failed: Map<string, Error>): Promise<DiscoveredVersion[]> {
    const versions = groups.flatMap((group) => group.versions.map((version) => ({ group, version })));
    return Promise.all(
      versions.map(async ({ group, version }) => {
        const preferred = version.version === (group.preferredVersion?.version ?? group.versions[0]?.version);
        let resources: ApiResource[] = [];
        try {
          resources = await this.serverResourcesForGroupVersion(version.groupVersion);
        } catch (err) {
          failed.set(version.groupVersion, err instanceof Error ? err : new Error(String(err)));
        }
        return { group: group.name, version: version.version, preferred, resources };
      }),
    );
  }
}

/** Keeps the resources that carry every one of `verbs`, e.g. ["list", "watch", "delete"]. */
export function withVerbs(resources: ApiResource[], verbs: string[]): ApiResource[] {
  return resources.filter((r) => verbs.every((v) => r.verbs.includes(v)));
}

/** Every group version from the two aggregated documents. */
function aggregatedVersions(groups: readonly ApiGroupDiscovery[], failed: Map<string, Error>): DiscoveredVersion[] {
  const versions: DiscoveredVersion[] = [];
  for (const group of groups) {
    const name = group.metadata?.name ?? "";
    let preferredSeen = false;
    for (const { version, resources = [], freshness } of group.versions ?? []) {
      const groupVersion = name ? `${name}/${version}` : version;
      if (freshness === "Stale") {
        failed.set(groupVersion, new Error(`stale discovery of ${groupVersion}: the API serving it did not answer the API server`));
        continue;
      }
      // The first version that is not stale is the preferred one.
      const preferred = !preferredSeen;
      preferredSeen = true;
      const discovered = resources.flatMap((r) => {
        // A resource without a kind is only there as the parent of subresources.
        const kind = r.responseKind?.kind;
        if (!kind) return [];
        return [{ group: name, version, resource: r.resource, kind, namespaced: r.scope === "Namespaced", verbs: r.verbs ?? [], ...(r.shortNames ? { shortNames: r.shortNames } : {}) }];
      });
      versions.push({ group: name, version, preferred, resources: discovered });
    }
  }
  return versions;
}

type CoreVersions = { versions: string[] };
type GroupList = { groups: ApiGroup[] };

/** The groups from the old-form /api and /apis; the core group's first version is its preferred one. */
function groupsFrom(core: CoreVersions, named: GroupList): ApiGroup[] {
  const coreVersions = core.versions.map((v) => ({ groupVersion: v, version: v }));
  return [{ name: "", versions: coreVersions, ...(coreVersions[0] ? { preferredVersion: coreVersions[0] } : {}) }, ...named.groups];
}
