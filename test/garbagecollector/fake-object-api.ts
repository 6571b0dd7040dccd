// An in-memory stand-in for the API server behind the garbage collector's ObjectApi: objects by
// type, namespace and name, with the API server's precondition and not-found answers, and its
// deletions (an object with finalizers, or deleted in the foreground or orphaning, stays with a
// deletionTimestamp). Every call is recorded, so tests can say which requests a decision cost.
import type { ObjectIdentity } from "../../controllers/garbagecollector/graph.ts";
import type { ObjectApi, PropagationPolicy } from "../../controllers/garbagecollector/object-api.ts";
import { RestMappingError } from "../../controllers/garbagecollector/rest-mapper.ts";
import { TerminalError } from "../../pkg/controller/reconciler.ts";
import type { PartialObjectMetadata } from "../../pkg/kube/dynamic-client.ts";
import { ApiError } from "../../pkg/kube/errors.ts";
import type { ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";

const namespacedKinds = new Set(["ConfigMap", "Secret", "Pod", "ReplicaSet", "Widget"]);
const clusterScopedKinds = new Set(["Namespace", "Node", "ClusterRole", "PersistentVolume"]);

export class FakeObjectApi implements ObjectApi {
  readonly calls: string[] = [];
  /** The next deletes fail with 409, as if the object changed after the decision. */
  conflictingDeletes = 0;
  /** cached() answers from here; by default the informer is up to date with the server. */
  readonly staleCache = new Map<string, PartialObjectMetadata>();
  private readonly objects = new Map<string, PartialObjectMetadata>();
  private resourceVersion = 100;

  /** Stores an object (a new resourceVersion each time); returns its identity. */
  put(apiVersion: string, kind: string, meta: ObjectMeta): ObjectIdentity {
    const stored: PartialObjectMetadata = { apiVersion, kind, metadata: { ...meta, resourceVersion: String(++this.resourceVersion) } };
    this.objects.set(keyOf(kind, meta.namespace ?? "", meta.name ?? ""), stored);
    return { apiVersion, kind, namespace: meta.namespace ?? "", name: meta.name ?? "", uid: meta.uid ?? "" };
  }

  stored(identity: ObjectIdentity): ObjectMeta | undefined {
    const meta = this.objects.get(keyOf(identity.kind, identity.namespace, identity.name))?.metadata;
    return meta?.uid === identity.uid ? meta : undefined;
  }

  isNamespaced(_apiVersion: string, kind: string): boolean {
    if (namespacedKinds.has(kind)) return true;
    if (clusterScopedKinds.has(kind)) return false;
    throw new RestMappingError(`unknown kind ${kind}`);
  }

  async get(identity: ObjectIdentity): Promise<PartialObjectMetadata | undefined> {
    // As KubeObjectApi: no request can name a namespaced object without its namespace.
    if (this.isNamespaced(identity.apiVersion, identity.kind) && !identity.namespace) throw new TerminalError(`${identity.kind} is namespaced`);
    const key = this.key(identity);
    this.calls.push(`get ${key}`);
    return structuredClone(this.objects.get(key));
  }

  cached(identity: ObjectIdentity): PartialObjectMetadata | undefined {
    const key = this.key(identity);
    const found = this.staleCache.get(key) ?? this.objects.get(key);
    return found?.metadata?.uid === identity.uid ? structuredClone(found) : undefined;
  }

  async delete(identity: ObjectIdentity, policy: PropagationPolicy, resourceVersion?: string): Promise<void> {
    const key = this.key(identity);
    this.calls.push(`delete ${key} ${policy}${resourceVersion ? ` rv=${resourceVersion}` : ""}`);
    const meta = this.objects.get(key)?.metadata;
    if (!meta) throw new ApiError(404, "NotFound", "not found", "DELETE", key);
    if (this.conflictingDeletes > 0 || meta.uid !== identity.uid || (resourceVersion && resourceVersion !== meta.resourceVersion)) {
      this.conflictingDeletes = Math.max(0, this.conflictingDeletes - 1);
      throw new ApiError(409, "Conflict", "precondition failed", "DELETE", key);
    }
    const finalizer = policy === "Foreground" ? "foregroundDeletion" : policy === "Orphan" ? "orphan" : undefined;
    const finalizers = [...(meta.finalizers ?? []), ...(finalizer && !meta.finalizers?.includes(finalizer) ? [finalizer] : [])];
    if (finalizers.length === 0) this.objects.delete(key);
    else if (!meta.deletionTimestamp) this.put(identity.apiVersion, identity.kind, { ...meta, finalizers, deletionTimestamp: "2025-01-01T00:00:00Z" });
  }

  async removeOwnerReferences(identity: ObjectIdentity, ownerUids: readonly string[]): Promise<void> {
    this.calls.push(`remove-refs ${this.key(identity)} ${ownerUids.join(",")}`);
    this.rewriteOwners(identity, (owners) => owners.filter((ref) => !ownerUids.includes(ref.uid)));
  }

  async unblockOwnerReferences(identity: ObjectIdentity, _owners: readonly OwnerReference[]): Promise<PartialObjectMetadata | undefined> {
    this.calls.push(`unblock ${this.key(identity)}`);
    this.rewriteOwners(identity, (owners) => owners.map((ref) => (ref.blockOwnerDeletion ? { ...ref, blockOwnerDeletion: false } : ref)));
    return structuredClone(this.objects.get(this.key(identity)));
  }

  async removeFinalizer(identity: ObjectIdentity, finalizer: string): Promise<void> {
    this.calls.push(`remove-finalizer ${this.key(identity)} ${finalizer}`);
    const meta = this.stored(identity);
    if (meta) this.put(identity.apiVersion, identity.kind, { ...meta, finalizers: (meta.finalizers ?? []).filter((f) => f !== finalizer) });
  }

  /** As the API server, a patch that changes nothing writes nothing: the resourceVersion stays. */
  private rewriteOwners(identity: ObjectIdentity, rewrite: (owners: OwnerReference[]) => OwnerReference[]): void {
    const meta = this.stored(identity);
    if (!meta) return;
    const ownerReferences = rewrite(meta.ownerReferences ?? []);
    if (JSON.stringify(ownerReferences) !== JSON.stringify(meta.ownerReferences ?? [])) this.put(identity.apiVersion, identity.kind, { ...meta, ownerReferences });
  }

  private key(identity: ObjectIdentity): string {
    return keyOf(identity.kind, this.isNamespaced(identity.apiVersion, identity.kind) ? identity.namespace : "", identity.name);
  }
}

function keyOf(kind: string, namespace: string, name: string): string {
  return namespace ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
}
