// The API calls the garbage collector's workers make, on objects of any type named by an
// ObjectIdentity. Reads and writes go through the metadata endpoints; errors are the API
// server's (ApiError), so callers branch on isNotFound / isConflict.
import { TerminalError } from "../../pkg/controller/reconciler.ts";
import type { DeleteOptions, PartialObjectMetadata, ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ApiError, isConflict, isNotFound } from "../../pkg/kube/errors.ts";
import type { GroupVersionResource } from "../../pkg/kube/gvr.ts";
import type { OwnerReference } from "../../pkg/kube/objects.ts";
import { describeIdentity, type ObjectIdentity } from "./graph.ts";
import {
  referencesMergePatch,
  removeFinalizerMergePatch,
  removeReferencesStrategicPatch,
  unblocked,
  unblockReferencesStrategicPatch,
  withoutReferences,
} from "./owner-references.ts";
import type { RestMapper } from "./rest-mapper.ts";

export type PropagationPolicy = NonNullable<DeleteOptions["propagationPolicy"]>;

export interface ObjectApi {
  /** Whether objects of this type live in namespaces; throws RestMappingError for an unknown type. */
  isNamespaced(apiVersion: string, kind: string): boolean;
  /**
   * A live GET of the object's metadata, by name (the UID is not checked); undefined when there
   * is none. Throws TerminalError for a namespaced type without a namespace (guessed from a
   * cluster-scoped dependent's reference): no request can name such an object.
   */
  get(identity: ObjectIdentity): Promise<PartialObjectMetadata | undefined>;
  /** The monitoring informer's copy of the object with this UID, if it has one. */
  cached(identity: ObjectIdentity): PartialObjectMetadata | undefined;
  /** DELETE, only if the object still has identity.uid (and `resourceVersion`, when given). */
  delete(identity: ObjectIdentity, policy: PropagationPolicy, resourceVersion?: string): Promise<void>;
  /** Drops the references to `ownerUids`; a missing object or reference is not an error. */
  removeOwnerReferences(identity: ObjectIdentity, ownerUids: readonly string[]): Promise<void>;
  /** Clears blockOwnerDeletion on the object's references; returns the patched object, undefined when it is gone. */
  unblockOwnerReferences(identity: ObjectIdentity, owners: readonly OwnerReference[]): Promise<PartialObjectMetadata | undefined>;
  /** Drops one finalizer from the object with this UID; nothing to do when it is gone or has none. */
  removeFinalizer(identity: ObjectIdentity, finalizer: string): Promise<void>;
}

/** Looks an object up in the informer that monitors `resource`, by cache key (namespace/name or name). */
export type CacheLookup = (resource: GroupVersionResource, key: string) => PartialObjectMetadata | undefined;

/** kube-controller-manager re-reads and retries a conflicting finalizer update this many times (retry.DefaultBackoff). */
const finalizerUpdateAttempts = 4;

export class KubeObjectApi implements ObjectApi {
  /** Types whose strategic merge patch the API server refused (custom resources): they get JSON merge patches. */
  private readonly withoutStrategicMerge = new Set<string>();

  constructor(
    private readonly client: KubeClient,
    private readonly mapper: RestMapper,
    private readonly lookup: CacheLookup,
  ) {}

  isNamespaced(apiVersion: string, kind: string): boolean {
    return this.mapper.resourceFor(apiVersion, kind).namespaced;
  }

  async get(identity: ObjectIdentity): Promise<PartialObjectMetadata | undefined> {
    if (this.isNamespaced(identity.apiVersion, identity.kind) && !identity.namespace) {
      throw new TerminalError(`${describeIdentity(identity)}: ${identity.kind} is namespaced, and only a cluster-scoped object names it without a namespace`);
    }
    try {
      return await this.resourceClient(identity).get(identity.name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  cached(identity: ObjectIdentity): PartialObjectMetadata | undefined {
    const resource = this.mapper.knownResourceFor(identity.apiVersion, identity.kind);
    if (!resource) return undefined;
    const key = resource.namespaced ? `${identity.namespace}/${identity.name}` : identity.name;
    const cached = this.lookup(resource, key);
    return cached?.metadata?.uid === identity.uid ? cached : undefined;
  }

  async delete(identity: ObjectIdentity, policy: PropagationPolicy, resourceVersion?: string): Promise<void> {
    await this.resourceClient(identity).delete(identity.name, {
      propagationPolicy: policy,
      preconditions: { uid: identity.uid, ...(resourceVersion ? { resourceVersion } : {}) },
    });
  }

  async removeOwnerReferences(identity: ObjectIdentity, ownerUids: readonly string[]): Promise<void> {
    await this.patchReferences(identity, removeReferencesStrategicPatch(identity.uid, ownerUids), (owners) => withoutReferences(owners, ownerUids));
  }

  unblockOwnerReferences(identity: ObjectIdentity, owners: readonly OwnerReference[]): Promise<PartialObjectMetadata | undefined> {
    return this.patchReferences(identity, unblockReferencesStrategicPatch(identity.uid, owners), unblocked);
  }

  async removeFinalizer(identity: ObjectIdentity, finalizer: string): Promise<void> {
    for (let attempt = 1; attempt <= finalizerUpdateAttempts; attempt++) {
      const current = await this.get(identity);
      const meta = current?.metadata;
      if (meta?.uid !== identity.uid || !meta.finalizers?.includes(finalizer)) return;
      try {
        await this.resourceClient(identity).patch(identity.name, removeFinalizerMergePatch(meta, finalizer), "merge");
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt === finalizerUpdateAttempts) throw err;
      }
    }
  }

  /**
   * Strategic merge needs no current state and cannot clobber a concurrent change; custom
   * resources do not support it, so they get the whole list at the current resourceVersion.
   * Returns the patched object; undefined when it is gone.
   */
  private async patchReferences(
    identity: ObjectIdentity,
    strategicPatch: unknown,
    rewrite: (owners: readonly OwnerReference[]) => OwnerReference[],
  ): Promise<PartialObjectMetadata | undefined> {
    const client = this.resourceClient(identity);
    const type = `${identity.apiVersion}/${identity.kind}`;
    try {
      if (!this.withoutStrategicMerge.has(type)) {
        try {
          return await client.patch(identity.name, strategicPatch, "strategic");
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 415)) throw err;
          this.withoutStrategicMerge.add(type);
        }
      }
      const meta = (this.cached(identity) ?? (await this.get(identity)))?.metadata;
      if (meta?.uid !== identity.uid) return undefined;
      return await client.patch(identity.name, referencesMergePatch(meta, rewrite(meta.ownerReferences ?? [])), "merge");
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private resourceClient(identity: ObjectIdentity): ResourceClient<PartialObjectMetadata> {
    const resource = this.mapper.resourceFor(identity.apiVersion, identity.kind);
    if (resource.namespaced && !identity.namespace) throw new Error(`${describeIdentity(identity)}: a namespaced type without a namespace`);
    return this.client.dynamic.metadata(resource, resource.namespaced ? identity.namespace : undefined);
  }
}
