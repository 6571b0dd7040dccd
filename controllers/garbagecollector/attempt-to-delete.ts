// The attemptToDelete worker: decides whether an object is garbage and acts on it. Each
// ownerReference is classified (upstream's classifyReferences), by what the owner's
// coordinates, taken in the dependent's namespace for a namespaced kind, lead to:
//   dangling: nothing there — a live GET found nothing or another UID under that name (so an
//             owner in another namespace is dangling: kube-controller-manager v1.37 does the same);
//   waiting:  the owner is being deleted in the foreground and waits for its dependents;
//   solid:    the owner exists.
// An owner the graph shows counts as solid without a GET as long as that only keeps the object;
// before references are removed on its strength it is read live, as upstream reads every owner.
// Any solid reference keeps the object, minus its dangling and waiting references; otherwise it
// is deleted, with UID and resourceVersion preconditions on the state decided on, under the
// policy its own finalizers ask for; so too after clearing its own blockOwnerDeletion first: a
// patch that changed it makes that DELETE fail, and the object is decided again on a later
// attempt, as upstream's (kube-controller-manager 1.34+). A DELETE answered 404 means the object
// is gone: the graph drops it at once (kube-controller-manager 1.36+), rather than waiting for
// its informer. A cluster-scoped object naming a namespaced owner is left alone and not retried,
// as upstream leaves it.
import { type Reconciler, type ReconcileResult, TerminalError } from "../../pkg/controller/reconciler.ts";
import { isConflict, isNotFound } from "../../pkg/kube/errors.ts";
import { hasFinalizer } from "../../pkg/kube/finalizers.ts";
import type { ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";
import { type Logger, silentLogger } from "../../pkg/log/logger.ts";
import type { AbsentOwnerCache } from "./absent-owner-cache.ts";
import { describeIdentity, type DependencyGraph, type GraphNode, identityOf, type ObjectIdentity, sameIdentity } from "./graph.ts";
import { noopGarbageCollectorMetrics, type GarbageCollectorMetrics } from "./metrics.ts";
import type { ObjectApi, PropagationPolicy } from "./object-api.ts";
import { foregroundDeletionFinalizer, isBeingDeleted, orphanFinalizer, sameReferences } from "./owner-references.ts";

export type OwnerVerdict = "solid" | "dangling" | "waiting";

export interface ClassifiedReference {
  ref: OwnerReference;
  verdict: OwnerVerdict;
  /** What the verdict rests on, for the log. */
  reason: string;
  /** Solid on the graph's word alone, without asking the API server. */
  fromGraph?: boolean;
}

export type Decision =
  | { action: "keep" }
  | { action: "remove-references"; ownerUids: string[] }
  /** `unblockFirst`: clear the object's own blockOwnerDeletion first, so two foreground deletions cannot wait on each other. */
  | { action: "delete"; policy: PropagationPolicy; unblockFirst: boolean };

/** What to do with an object, given its finalizers, its dependents in the graph and its classified references. */
export function decide(meta: ObjectMeta, dependents: ReadonlySet<GraphNode>, references: readonly ClassifiedReference[]): Decision {
  const uidsOf = (...verdicts: OwnerVerdict[]) => references.filter((r) => verdicts.includes(r.verdict)).map((r) => r.ref.uid);
  if (uidsOf("solid").length > 0) {
    // A waiting reference left in place would hold its owner's foreground deletion forever.
    const remove = uidsOf("dangling", "waiting");
    return remove.length > 0 ? { action: "remove-references", ownerUids: remove } : { action: "keep" };
  }
  if (uidsOf("waiting").length > 0 && dependents.size > 0) {
    const unblockFirst = [...dependents].some((dependent) => dependent.deletingDependents);
    return { action: "delete", policy: "Foreground", unblockFirst };
  }
  const policy: PropagationPolicy = hasFinalizer({ metadata: meta }, orphanFinalizer)
    ? "Orphan"
    : hasFinalizer({ metadata: meta }, foregroundDeletionFinalizer)
      ? "Foreground"
      : "Background";
  return { action: "delete", policy, unblockFirst: false };
}

/** A virtual node whose object exists is checked again (with backoff) until an informer reports it. */
export class NotObservedYetError extends Error {
  override readonly name = "NotObservedYetError";
}

export interface AttemptToDeleteOptions {
  api: ObjectApi;
  graph: DependencyGraph;
  absentOwners: AbsentOwnerCache;
  /** Where a worker reports an object it found gone, owner or dependent (the graph builder). */
  observeVirtualDeletion(identity: ObjectIdentity): void;
  /** Queues a node for this worker again. */
  enqueue(node: GraphNode): void;
  metrics?: Pick<GarbageCollectorMetrics, "deleted" | "referencesRemoved">;
  logger?: Logger;
}

export class AttemptToDelete implements Reconciler<GraphNode> {
  private readonly logger: Logger;
  private readonly metrics: Pick<GarbageCollectorMetrics, "deleted" | "referencesRemoved">;
  /** Owner GETs in flight, shared by workers asking about the same owner at once. */
  private readonly ownerLookups = new Map<string, Promise<ObjectMeta | undefined>>();
  /**
   * Nodes this worker has deleted: until the graph sees the deletion, every copy of the object
   * predates it, and deciding on one would send a second DELETE.
   */
  private readonly deleted = new WeakSet<GraphNode>();

  constructor(private readonly options: AttemptToDeleteOptions) {
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? noopGarbageCollectorMetrics;
  }

  async reconcile(node: GraphNode): Promise<ReconcileResult> {
    const { api, graph } = this.options;
    // Dropped since it was queued: deleted, or proven absent.
    if (graph.get(node.uid) !== node) return;
    if ((node.beingDeleted || this.deleted.has(node)) && !node.deletingDependents) return;
    const identity = identityOf(node);
    const wasVirtual = node.virtual;
    // An observed object is read from its informer: the delete's preconditions catch a stale copy.
    const latest = (wasVirtual ? undefined : api.cached(identity)) ?? (await api.get(identity));
    const meta = latest?.metadata;
    if (meta?.uid !== identity.uid) {
      this.options.observeVirtualDeletion(identity);
      return;
    }
    if (node.deletingDependents) return this.finishForegroundDeletion(node, identity);
    const refs = meta.ownerReferences ?? [];
    // Being deleted already (the graph has not caught up): its update queues the node again if needed.
    if (refs.length > 0 && !isBeingDeleted(meta)) {
      const references: ClassifiedReference[] = [];
      for (const ref of refs) references.push(await this.classify(identity, ref, true));
      let decision = decide(meta, node.dependents, references);
      // Keeping the object on the graph's word is safe (an owner's deletion queues it again), but
      // removed references stay removed: like upstream, which reads every owner live, confirm first.
      if (decision.action === "remove-references" && references.some((reference) => reference.fromGraph)) {
        for (const [index, reference] of references.entries()) {
          if (reference.fromGraph) references[index] = await this.classify(identity, reference.ref, false);
        }
        decision = decide(meta, node.dependents, references);
      }
      this.logger.debug({ item: describeIdentity(identity), references, decision }, "garbage collector decision");
      // Gone: the graph has been told, and a virtual node it keeps under other coordinates is queued by it.
      if ((await this.carryOut(node, identity, meta, decision, references)) === "gone") return;
    }
    if (wasVirtual && node.virtual) throw new NotObservedYetError(`${describeIdentity(identity)} exists but no informer has reported it yet`);
  }

  /** The foregroundDeletion finalizer comes off once no dependent blocks; until then the blocking ones are pushed. */
  private async finishForegroundDeletion(node: GraphNode, identity: ObjectIdentity): Promise<ReconcileResult> {
    const blocking = node.blockingDependents();
    if (blocking.length === 0) {
      await this.options.api.removeFinalizer(identity, foregroundDeletionFinalizer);
      return;
    }
    for (const dependent of blocking) if (!dependent.deletingDependents) this.options.enqueue(dependent);
  }

  /** `trustGraph`: an owner the graph shows, not being deleted, is solid without a GET. */
  private async classify(item: ObjectIdentity, ref: OwnerReference, trustGraph: boolean): Promise<ClassifiedReference> {
    const { api, graph, absentOwners } = this.options;
    const coordinates = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
    if (absentOwners.has({ ...coordinates, namespace: "" }) || absentOwners.has({ ...coordinates, namespace: item.namespace })) {
      return { ref, verdict: "dangling", reason: "known to be absent" };
    }
    const namespaced = api.isNamespaced(ref.apiVersion, ref.kind);
    if (namespaced && item.namespace === "") {
      throw new TerminalError(
        `${describeIdentity(item)} is cluster-scoped but names a namespaced owner (${ref.kind} ${ref.name}); the garbage collector leaves it alone`,
      );
    }
    const owner: ObjectIdentity = { ...coordinates, namespace: namespaced ? item.namespace : "" };
    // Informers may lag behind a deletion but never report an owner that did not exist: one they
    // report is solid, at worst until its deletion arrives and queues this object again.
    const ownerNode = graph.get(ref.uid);
    if (trustGraph && ownerNode && !ownerNode.virtual && !ownerNode.beingDeleted && sameIdentity(ownerNode, owner)) {
      return { ref, verdict: "solid", reason: "exists", fromGraph: true };
    }
    const meta = await this.lookUpOwner(owner);
    if (meta?.uid !== ref.uid) {
      absentOwners.add(owner);
      return { ref, verdict: "dangling", reason: meta ? `another object (${meta.uid ?? "no uid"}) has its name` : "not found" };
    }
    return isBeingDeleted(meta) && hasFinalizer({ metadata: meta }, foregroundDeletionFinalizer)
      ? { ref, verdict: "waiting", reason: "being deleted in the foreground" }
      : { ref, verdict: "solid", reason: "exists" };
  }

  private lookUpOwner(owner: ObjectIdentity): Promise<ObjectMeta | undefined> {
    const key = JSON.stringify([owner.apiVersion, owner.kind, owner.namespace, owner.name]);
    let lookup = this.ownerLookups.get(key);
    if (!lookup) {
      lookup = this.options.api.get(owner).then((found) => found?.metadata).finally(() => this.ownerLookups.delete(key));
      this.ownerLookups.set(key, lookup);
    }
    return lookup;
  }

  private async carryOut(
    node: GraphNode,
    identity: ObjectIdentity,
    meta: ObjectMeta,
    decision: Decision,
    references: readonly ClassifiedReference[],
  ): Promise<"gone" | undefined> {
    const { api } = this.options;
    const owners = references.map(({ ref, verdict, reason }) => ({ verdict, owner: `${ref.apiVersion}/${ref.kind} ${ref.name} (${ref.uid}): ${reason}` }));
    switch (decision.action) {
      case "keep":
        return;
      case "remove-references":
        await api.removeOwnerReferences(identity, decision.ownerUids);
        this.metrics.referencesRemoved(decision.ownerUids.length);
        this.logger.info(
          { item: describeIdentity(identity), owners: owners.map((o) => o.owner) },
          "removed references to owners absent or being deleted in the foreground; other owners keep the object",
        );
        return;
      case "delete": {
        if (decision.unblockFirst && !(await this.unblock(identity, meta))) return;
        const outcome = await this.deleteAsDecided(identity, meta, decision.policy);
        if (outcome !== "deleted") return outcome === "gone" ? "gone" : undefined;
        this.deleted.add(node);
        const waiting = owners.some((o) => o.verdict === "waiting");
        const absent = owners.some((o) => o.verdict === "dangling");
        const whose = waiting && absent ? "absent or being deleted in the foreground" : waiting ? "being deleted in the foreground" : "absent";
        this.logger.info(
          { item: describeIdentity(identity), propagationPolicy: decision.policy, owners: owners.map((o) => o.owner) },
          `deleted object whose owners are ${whose}`,
        );
        this.metrics.deleted(decision.policy);
      }
    }
  }

  /**
   * Clears the object's blockOwnerDeletion so two foreground deletions cannot wait on each other;
   * false when the object is gone or already being deleted. The DELETE that follows is still at
   * the decided state, as kube-controller-manager sends it (1.34+): when the patch changed the
   * object, it fails its precondition and the object is decided again on a later attempt.
   */
  private async unblock(identity: ObjectIdentity, meta: ObjectMeta): Promise<boolean> {
    const patched = (await this.options.api.unblockOwnerReferences(identity, meta.ownerReferences ?? []))?.metadata;
    if (patched?.uid !== identity.uid || isBeingDeleted(patched)) return false;
    this.logger.info(
      { item: describeIdentity(identity) },
      "cleared blockOwnerDeletion before deleting in the foreground: a dependent is itself deleting in the foreground",
    );
    return true;
  }

  /**
   * Deletes only the state the decision was made on (UID and resourceVersion preconditions), as
   * kube-controller-manager does since 1.34. After a conflict it reads the object again: with the
   * same ownerReferences (exactly: a flag unset and one set to false differ, as upstream compares
   * them) at another resourceVersion it deletes again with the UID precondition alone (so updates
   * unrelated to ownership cannot starve it, upstream's rule); with other references it throws,
   * to decide again. Unlike upstream it sends nothing more to an object being deleted meanwhile:
   * a second DELETE would rewrite the finalizers its deleter chose (an orphan finalizer dropped by
   * a background policy). An object found gone, on the DELETE or on the read, is reported to the
   * graph; so is one whose name another object has taken by then (upstream requeues it and
   * reports it on the next attempt, which finds the other UID).
   */
  private async deleteAsDecided(identity: ObjectIdentity, meta: ObjectMeta, policy: PropagationPolicy): Promise<"deleted" | "gone" | "left"> {
    const { api } = this.options;
    let conflict: unknown;
    try {
      await api.delete(identity, policy, meta.resourceVersion);
      return "deleted";
    } catch (err) {
      if (isNotFound(err)) return this.gone(identity);
      if (!isConflict(err) || !meta.resourceVersion) throw err;
      conflict = err;
    }
    const live = (await api.get(identity))?.metadata;
    if (live?.uid !== identity.uid) return this.gone(identity);
    if (isBeingDeleted(live)) return "left";
    if (live.resourceVersion === meta.resourceVersion || !sameReferences(live.ownerReferences ?? [], meta.ownerReferences ?? [])) throw conflict;
    try {
      await api.delete(identity, policy);
      return "deleted";
    } catch (err) {
      if (isNotFound(err)) return this.gone(identity);
      throw err;
    }
  }

  private gone(identity: ObjectIdentity): "gone" {
    this.options.observeVirtualDeletion(identity);
    return "gone";
  }
}
