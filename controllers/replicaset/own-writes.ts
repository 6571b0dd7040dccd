// Read your own writes (KEP-5647, kube-controller-manager's pkg/controller/util/consistency):
// the resourceVersions a controller got back from its own writes, per owner, so a sync can tell
// that an informer's cache has not caught up with them yet. Acting on such a cache would undo or
// repeat the writes (a Pod created but not yet seen is created again), so the sync waits.
import { splitMetaNamespaceKey } from "../../pkg/informer/keys.ts";
import { compareResourceVersions } from "../../pkg/kube/resource-version.ts";

/** A cache that knows the resourceVersion of the last change applied to it (client-go's LastStoreSyncResourceVersion). */
export interface LastSyncedVersion {
  /** "" when the cache cannot tell; with a namespace, how far that namespace's objects are known (a sharded cache's lists differ). */
  lastStoreSyncResourceVersion(namespace?: string): string;
}

export interface GroupResource {
  /** "" for the core group. */
  group: string;
  resource: string;
}

export interface WatchedCache extends GroupResource {
  cache: LastSyncedVersion;
}

/** The cache of `resource` is older than what the controller itself wrote there. */
export class StaleCacheError extends Error {
  override readonly name = "StaleCacheError";

  constructor(
    readonly resource: GroupResource,
    readonly wroteVersion: string,
    readonly readVersion: string,
  ) {
    super(`cache of ${groupResourceString(resource)} is at resourceVersion ${readVersion}, older than this controller's own write at ${wroteVersion}`);
  }
}

/** What one owner (by UID) wrote last, per resource. */
interface OwnerWrites {
  uid: string;
  versions: Map<string, { resource: GroupResource; version: string }>;
}

export class OwnWrites {
  private readonly caches = new Map<string, LastSyncedVersion>();
  private readonly owners = new Map<string, OwnerWrites>();

  constructor(caches: readonly WatchedCache[]) {
    for (const { cache, ...resource } of caches) this.caches.set(groupResourceString(resource), cache);
  }

  /**
   * Remembers that the owner (key `namespace/name`) wrote `resource` at `version`, unless it
   * remembers a newer write there already. A record of another owner under the same name (an
   * earlier incarnation) is dropped.
   */
  wroteAt(owner: string, ownerUid: string, resource: GroupResource, version: string): void {
    let writes = this.owners.get(owner);
    if (writes?.uid !== ownerUid) {
      writes = { uid: ownerUid, versions: new Map() };
      this.owners.set(owner, writes);
    }
    const id = groupResourceString(resource);
    const known = writes.versions.get(id);
    // A version that cannot be ordered replaces the record: the newest write is the best guess.
    if (known && (compareResourceVersions(known.version, version) ?? -1) >= 0) return;
    writes.versions.set(id, { resource, version });
  }

  /** Forgets the owner's writes; with an `ownerUid`, only if that incarnation made them. */
  forget(owner: string, ownerUid = ""): void {
    const writes = this.owners.get(owner);
    if (writes && (ownerUid === "" || writes.uid === ownerUid)) this.owners.delete(owner);
  }

  /**
   * Throws StaleCacheError while a cache is older than a write of the owner's; once every cache
   * has caught up, the record is forgotten. A cache that cannot tell its version, or versions
   * that cannot be ordered, never hold a sync back.
   */
  ensureCaughtUp(owner: string): void {
    const writes = this.owners.get(owner);
    if (!writes) return;
    const { namespace } = splitMetaNamespaceKey(owner);
    for (const [id, { resource, version }] of writes.versions) {
      const read = this.caches.get(id)?.lastStoreSyncResourceVersion(namespace) ?? "";
      if (read === "") continue;
      if ((compareResourceVersions(version, read) ?? 0) > 0) throw new StaleCacheError(resource, version, read);
    }
    this.forget(owner, writes.uid);
  }
}

/** `pods` for the core group, `replicasets.apps` otherwise (Kubernetes' GroupResource.String). */
function groupResourceString({ group, resource }: GroupResource): string {
  return group ? `${resource}.${group}` : resource;
}
