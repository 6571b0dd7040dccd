// Turns what the informers report into the dependency graph, and queues the nodes that may now
// be garbage (attemptToDelete) or whose dependents must be orphaned (attemptToOrphan).
// Each change is applied by one synchronous call, so the graph has a single writer and a worker
// never sees half a change (kube-controller-manager gets the same from one goroutine draining
// a graph-changes queue).
import { DroppedFromShare, finalStateOf } from "../../pkg/informer/deltas.ts";
import { isResync, type ResourceEventHandler } from "../../pkg/informer/event-handler.ts";
import { hasFinalizer } from "../../pkg/kube/finalizers.ts";
import type { KubeObject, ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";
import { type Logger, silentLogger } from "../../pkg/log/logger.ts";
import type { AbsentOwnerCache } from "./absent-owner-cache.ts";
import { DependencyGraph, GraphNode, type ObjectIdentity, referenceMatches, sameIdentity } from "./graph.ts";
import { noopGarbageCollectorMetrics, type GarbageCollectorMetrics } from "./metrics.ts";
import {
  type ChangedReference,
  foregroundDeletionFinalizer,
  isBeingDeleted,
  orphanFinalizer,
  referencesDiff,
} from "./owner-references.ts";

/** What the builder needs of a workqueue of nodes. */
export interface NodeQueue {
  add(node: GraphNode): void;
  addRateLimited(node: GraphNode): void;
}

export interface GraphBuilderOptions {
  attemptToDelete: NodeQueue;
  attemptToOrphan: NodeQueue;
  absentOwners: AbsentOwnerCache;
  /** Tells the user (a Warning Event, kube-controller-manager's OwnerRefInvalidNamespace) that a reference names an owner in another namespace. */
  reportInvalidNamespaceOwnerRef?(dependent: ObjectIdentity, message: string): void;
  metrics?: Pick<GarbageCollectorMetrics, "graphChanged">;
  logger?: Logger;
}

/** One object as an informer of `apiVersion`/`kind` reported it. */
export interface ObservedChange {
  type: "add" | "update" | "delete";
  object: KubeObject;
  /** The previous state, for updates. */
  oldObject?: KubeObject;
  apiVersion: string;
  kind: string;
  /** Deletes only: the object left the cache with its namespace's shard; it may well still exist. */
  droppedFromShare?: boolean;
}

export class GraphBuilder {
  readonly graph = new DependencyGraph();
  private readonly logger: Logger;
  private readonly metrics: Pick<GarbageCollectorMetrics, "graphChanged">;

  constructor(private readonly options: GraphBuilderOptions) {
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? noopGarbageCollectorMetrics;
  }

  /** The informer handler of one resource. Metadata informers report kind PartialObjectMetadata, so the resource's kind is given. */
  handlerFor(apiVersion: string, kind: string): ResourceEventHandler<KubeObject> {
    return {
      onAdd: (object) => this.observe({ type: "add", object, apiVersion, kind }),
      onUpdate: (oldObject, object) => {
        if (!isResync(oldObject, object)) this.observe({ type: "update", object, oldObject, apiVersion, kind });
      },
      onDelete: (deleted) =>
        this.observe({ type: "delete", object: finalStateOf(deleted), apiVersion, kind, ...(deleted instanceof DroppedFromShare ? { droppedFromShare: true } : {}) }),
    };
  }

  observe(change: ObservedChange): void {
    const meta = change.object.metadata;
    if (!meta?.uid || !meta.name) {
      this.logger.warn({ kind: change.kind, name: meta?.name }, "ignoring an object without uid or name");
      return;
    }
    const old = change.oldObject;
    if (change.type === "update" && old?.metadata?.uid && old.metadata.uid !== meta.uid) {
      // Deleted and recreated under the same name between two observations: two objects, not one.
      this.observe({ ...change, type: "delete", object: old, oldObject: undefined });
      this.observe({ ...change, type: "add", oldObject: undefined });
      return;
    }
    this.metrics.graphChanged(change.type);
    const observed: ObjectIdentity = {
      apiVersion: change.apiVersion,
      kind: change.kind,
      namespace: meta.namespace ?? "",
      name: meta.name,
      uid: meta.uid,
    };
    const existing = this.graph.get(observed.uid);
    if (existing?.virtual) this.markObserved(existing, observed);
    if (change.type === "delete") {
      if (existing) this.removeNode(existing);
      // An owner that only left this cache is not absent: had this member its namespace again, its dependents would be collected.
      if (existing?.dependents.size && !change.droppedFromShare) this.options.absentOwners.add(observed);
      return;
    }
    if (existing) this.updateNode(existing, meta, change.oldObject?.metadata);
    else this.insertNode(observed, meta, change.oldObject?.metadata);
  }

  /**
   * A worker found no object with `identity` (a GET or DELETE answered 404, or another UID has
   * that name): drop the node unless some dependents name the UID by other coordinates, which
   * then get their turn.
   * Either way the identity goes into the absent-owner cache when dependents name it, so they
   * are decided without asking the API server again.
   */
  observeVirtualDeletion(identity: ObjectIdentity): void {
    const existing = this.graph.get(identity.uid);
    if (!existing) return;
    this.metrics.graphChanged("virtual-delete");
    const { matching, nonMatching } = partitionDependents(existing.dependents, identity);
    const verifiedAbsent = () => {
      this.options.absentOwners.add(identity);
      for (const dependent of matching) this.options.attemptToDelete.add(dependent);
    };
    // An observed node is known under its observed coordinates; a virtual one stays while some dependents guess others.
    const keep = existing.virtual ? nonMatching.length > 0 : !sameIdentity(existing, identity);
    if (!keep) {
      if (existing.dependents.size > 0) this.options.absentOwners.add(identity);
      this.removeNode(existing);
      return;
    }
    if (matching.length > 0) verifiedAbsent();
    if (existing.virtual && sameIdentity(existing, identity)) {
      const alternative = alternateOwnerIdentity(nonMatching, identity);
      if (alternative) {
        existing.setIdentity(alternative);
        this.options.attemptToDelete.addRateLimited(existing);
      }
    }
  }

  private markObserved(node: GraphNode, observed: ObjectIdentity): void {
    if (!sameIdentity(node, observed)) {
      // Dependents that guessed other coordinates (another namespace, kind or name) may be invalid: let the workers check.
      for (const dependent of partitionDependents(node.dependents, observed).nonMatching) {
        if (observed.namespace && dependent.namespace !== observed.namespace) this.reportInvalidNamespace(dependent, observed);
        this.options.attemptToDelete.add(dependent);
      }
      node.setIdentity(observed);
    }
    node.virtual = false;
  }

  private insertNode(identity: ObjectIdentity, meta: ObjectMeta, oldMeta: ObjectMeta | undefined): void {
    const node = new GraphNode(identity, meta.ownerReferences ?? [], false);
    node.beingDeleted = isBeingDeleted(meta);
    node.deletingDependents = node.beingDeleted && hasFinalizer({ metadata: meta }, foregroundDeletionFinalizer);
    node.orphaningDependents = node.beingDeleted && hasFinalizer({ metadata: meta }, orphanFinalizer);
    this.graph.set(node);
    this.addDependentToOwners(node, node.owners);
    // A creation and a deletion can arrive merged into one add.
    this.processTransitions(node, meta, oldMeta);
  }

  private updateNode(node: GraphNode, meta: ObjectMeta, oldMeta: ObjectMeta | undefined): void {
    const owners = meta.ownerReferences ?? [];
    const diff = referencesDiff(node.owners, owners);
    if (diff.added.length > 0 || diff.removed.length > 0 || diff.changed.length > 0) {
      this.enqueueUnblockedOwners(diff.removed, diff.changed);
      node.owners = owners;
      this.addDependentToOwners(node, diff.added);
      for (const ref of diff.removed) this.graph.get(ref.uid)?.removeDependent(node);
    }
    if (isBeingDeleted(meta)) node.beingDeleted = true;
    node.orphaningDependents = node.beingDeleted && hasFinalizer({ metadata: meta }, orphanFinalizer);
    this.processTransitions(node, meta, oldMeta);
  }

  private removeNode(node: GraphNode): void {
    this.graph.delete(node.uid);
    for (const ref of node.owners) this.graph.get(ref.uid)?.removeDependent(node);
    for (const dependent of node.dependents) this.options.attemptToDelete.add(dependent);
    // An owner deleting in the foreground may have been waiting for this one.
    for (const ref of node.owners) {
      const owner = this.graph.get(ref.uid);
      if (owner?.deletingDependents) this.options.attemptToDelete.add(owner);
    }
  }

  /**
   * Links `node` to each owner, creating virtual nodes (queued, so a worker checks they exist) for
   * owners not seen yet. A reference that disagrees with what was observed queues the dependent.
   */
  private addDependentToOwners(node: GraphNode, refs: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const ref of refs) {
      let owner = this.graph.get(ref.uid);
      if (!owner) {
        const guessed = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: node.namespace };
        owner = new GraphNode(guessed, [], true);
        this.graph.set(owner);
        owner.addDependent(node);
        this.options.attemptToDelete.add(owner);
        continue;
      }
      owner.addDependent(node);
      // One suspicious reference is enough to check the dependent (and to tell about it once).
      if (potentiallyInvalid || !suspiciousReference(node, ref, owner)) continue;
      potentiallyInvalid = true;
      if (!owner.virtual && owner.namespace && owner.namespace !== node.namespace) this.reportInvalidNamespace(node, owner);
    }
    if (potentiallyInvalid) this.options.attemptToDelete.add(node);
  }

  /** kube-controller-manager's OwnerRefInvalidNamespace wording, then why. */
  private reportInvalidNamespace(dependent: GraphNode, owner: ObjectIdentity): void {
    const ref = dependent.owners.find((r) => r.uid === owner.uid);
    if (!ref) return;
    const named = `[${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
    const rule = dependent.namespace ? "a namespaced owner must be in its dependent's namespace" : "a cluster-scoped object can only have cluster-scoped owners";
    this.options.reportInvalidNamespaceOwnerRef?.(
      dependent,
      `ownerRef ${named} does not exist in namespace ${JSON.stringify(dependent.namespace)} (the object with that UID is in namespace ${JSON.stringify(owner.namespace)}: ${rule})`,
    );
  }

  /** A dependent that stopped blocking (reference removed or blockOwnerDeletion unset) may unblock a foreground deletion. */
  private enqueueUnblockedOwners(removed: readonly OwnerReference[], changed: readonly ChangedReference[]): void {
    const unblockedUids = [
      ...removed.filter((ref) => ref.blockOwnerDeletion === true).map((ref) => ref.uid),
      ...changed.filter(({ before, after }) => before.blockOwnerDeletion === true && after.blockOwnerDeletion !== true).map(({ after }) => after.uid),
    ];
    for (const uid of unblockedUids) {
      const owner = this.graph.get(uid);
      if (owner) this.options.attemptToDelete.add(owner);
    }
  }

  /** Reacts when a deletion with the orphan or foregroundDeletion finalizer starts. */
  private processTransitions(node: GraphNode, meta: ObjectMeta, oldMeta: ObjectMeta | undefined): void {
    if (deletionStartsWith(orphanFinalizer, meta, oldMeta)) {
      this.options.attemptToOrphan.add(node);
      return;
    }
    if (deletionStartsWith(foregroundDeletionFinalizer, meta, oldMeta)) {
      node.deletingDependents = true;
      for (const dependent of node.dependents) this.options.attemptToDelete.add(dependent);
      this.options.attemptToDelete.add(node);
    }
  }
}

function deletionStartsWith(finalizer: string, meta: ObjectMeta, oldMeta: ObjectMeta | undefined): boolean {
  if (!isBeingDeleted(meta) || !hasFinalizer({ metadata: meta }, finalizer)) return false;
  return oldMeta === undefined || !isBeingDeleted(oldMeta) || !hasFinalizer({ metadata: oldMeta }, finalizer);
}

/**
 * The reference may not mean the node the graph has for its UID: a namespaced owner in another
 * namespace, other coordinates, or a virtual cluster-scoped owner guessed from a cluster-scoped
 * dependent (it may be a namespaced owner a cluster-scoped object cannot have).
 */
function suspiciousReference(dependent: GraphNode, ref: OwnerReference, owner: GraphNode): boolean {
  const ownerNamespaced = owner.namespace !== "";
  if (ownerNamespaced) return owner.namespace !== dependent.namespace || !referenceMatches(ref, owner);
  return !referenceMatches(ref, owner) || (owner.virtual && owner.namespace !== dependent.namespace);
}

/** Splits dependents by whether their reference to `owner.uid` matches `owner` (a dependent can be in both). */
function partitionDependents(dependents: Iterable<GraphNode>, owner: ObjectIdentity): { matching: GraphNode[]; nonMatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonMatching: GraphNode[] = [];
  const ownerNamespaced = owner.namespace !== "";
  for (const dependent of dependents) {
    if (ownerNamespaced && owner.namespace !== dependent.namespace) {
      nonMatching.push(dependent);
      continue;
    }
    const refs = dependent.owners.filter((ref) => ref.uid === owner.uid);
    if (refs.some((ref) => referenceMatches(ref, owner))) matching.push(dependent);
    if (refs.some((ref) => !referenceMatches(ref, owner))) nonMatching.push(dependent);
  }
  return { matching, nonMatching };
}

/**
 * Another way dependents name the UID proven absent as `absent`: the first (in a fixed order)
 * after `absent`, else the first, so repeated proofs walk through every alternative.
 */
export function alternateOwnerIdentity(dependents: readonly GraphNode[], absent: ObjectIdentity): ObjectIdentity | undefined {
  const absentClusterScoped = absent.namespace === "";
  const candidates = new Map<string, ObjectIdentity>();
  for (const dependent of dependents) {
    for (const ref of dependent.owners) {
      if (ref.uid !== absent.uid) continue;
      if (referenceMatches(ref, absent) && (absentClusterScoped || absent.namespace === dependent.namespace)) continue;
      // The absent identity proved this apiVersion/kind cluster-scoped: its namespace is noise.
      const sameType = ref.apiVersion === absent.apiVersion && ref.kind === absent.kind;
      const namespace = absentClusterScoped && sameType ? "" : dependent.namespace;
      const candidate = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
      candidates.set(sortKey(candidate), candidate);
    }
  }
  candidates.delete(sortKey(absent));
  const ordered = [...candidates.keys()].sort();
  const next = ordered.find((key) => key > sortKey(absent)) ?? ordered[0];
  return next === undefined ? undefined : candidates.get(next);
}

/** Kind and apiVersion first, so cluster-scoped and namespaced variants of one type sort together. */
function sortKey(identity: ObjectIdentity): string {
  return [identity.kind, identity.apiVersion, identity.namespace, identity.name, identity.uid].join("\u0000");
}
