// Turns ReplicaSet and Pod informer events into ReplicaSet keys on the workqueue, and into the
// creations and deletions the expectations wait for. A Pod belongs to the ReplicaSet its controller
// ownerReference names; an orphan concerns every ReplicaSet whose selector matches it.
// Keys from the informers' initial lists and from ReplicaSet resyncs are queued at low priority, so that after a
// start or failover a ReplicaSet a user just changed is synced before the existing ones are all gone through
// (kube-controller-manager's queue has no priorities).
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import { finalStateOf, type DeletedFinalStateUnknown } from "../../pkg/informer/deltas.ts";
import type { ResourceEventHandler } from "../../pkg/informer/event-handler.ts";
import { metaNamespaceKeyFunc } from "../../pkg/informer/keys.ts";
import type { Lister } from "../../pkg/informer/lister.ts";
import type { OwnerReference, Wire } from "../../pkg/kube/objects.ts";
import { controllerRefOf, sameOwnerReference } from "../../pkg/kube/owner-references.ts";
import { selectorFromLabelSelector } from "../../pkg/labels/selector.ts";
import { addPriority, type KeyQueue, updatePriority } from "../../pkg/controller/handlers.ts";
import type { Priority } from "../../pkg/workqueue/priority.ts";
import type { PodExpectations } from "./expectations.ts";
import type { OwnWrites } from "./own-writes.ts";
import { replicaSetKind } from "./pod-control.ts";
import { isPodReady, podKey } from "./pod-state.ts";

type Pod = Wire<V1Pod>;
type ReplicaSet = Wire<V1ReplicaSet>;

export class ReplicaSetEventHandlers {
  constructor(
    private readonly queue: KeyQueue,
    private readonly expectations: PodExpectations,
    private readonly replicaSets: Lister<ReplicaSet>,
    private readonly ownWrites: Pick<OwnWrites, "forget">,
  ) {}

  readonly replicaSetHandler: ResourceEventHandler<ReplicaSet> = {
    onAdd: (rs, isInInitialList) => this.queue.add(metaNamespaceKeyFunc(rs), { priority: addPriority(isInInitialList) }),
    onUpdate: (oldRs, newRs) => {
      // A delete and re-create under the same name can arrive as one update.
      if (oldRs.metadata?.uid !== newRs.metadata?.uid) this.replicaSetDeleted(oldRs);
      // Every update (status writes and resyncs included) syncs: a ReplicaSet whose creations failed gets retried.
      this.queue.add(metaNamespaceKeyFunc(newRs), { priority: updatePriority(oldRs, newRs) });
    },
    onDelete: (deleted) => this.replicaSetDeleted(finalStateOf(deleted)),
  };

  readonly podHandler: ResourceEventHandler<Pod> = {
    // Without the initial list's Pods at low priority, every ReplicaSet with Pods would be queued at normal.
    onAdd: (pod, isInInitialList) => this.podAdded(pod, addPriority(isInInitialList)),
    onUpdate: (oldPod, newPod) => this.podUpdated(oldPod, newPod),
    onDelete: (deleted) => this.podDeleted(deleted),
  };

  private replicaSetDeleted(rs: ReplicaSet): void {
    const key = metaNamespaceKeyFunc(rs);
    // A ReplicaSet recreated under the same name starts clean.
    this.ownWrites.forget(key, rs.metadata?.uid);
    this.expectations.delete(key);
    this.queue.add(key);
  }

  private podAdded(pod: Pod, priority: Priority): void {
    // After a restart a Pod may first appear already being deleted: that is no creation.
    if (pod.metadata?.deletionTimestamp) return this.podDeleted(pod, priority);
    const ref = controllerRefOf(pod);
    if (ref) {
      const rs = this.resolveControllerRef(pod, ref);
      if (!rs) return;
      const key = metaNamespaceKeyFunc(rs);
      this.expectations.creationObserved(key);
      this.queue.add(key, { priority });
      return;
    }
    // An orphan: no ReplicaSet waits for it, but any that selects it may adopt it.
    for (const rs of this.replicaSetsSelecting(pod)) this.queue.add(metaNamespaceKeyFunc(rs), { priority });
  }

  private podUpdated(oldPod: Pod, newPod: Pod): void {
    // Resyncs redeliver the cached Pod; two real versions never share a resourceVersion.
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return;
    const labelsChanged = !sameLabels(oldPod.metadata?.labels, newPod.metadata?.labels);
    if (newPod.metadata?.deletionTimestamp) {
      // A graceful deletion started: replace the Pod now rather than when it is finally gone.
      this.podDeleted(newPod);
      if (labelsChanged) this.podDeleted(oldPod);
      return;
    }
    const oldRef = controllerRefOf(oldPod);
    const newRef = controllerRefOf(newPod);
    const refChanged = !sameOwnerRef(oldRef, newRef);
    if (refChanged && oldRef) {
      const previousOwner = this.resolveControllerRef(oldPod, oldRef);
      if (previousOwner) this.queue.add(metaNamespaceKeyFunc(previousOwner));
    }
    if (newRef) {
      const rs = this.resolveControllerRef(newPod, newRef);
      if (!rs) return;
      const key = metaNamespaceKeyFunc(rs);
      this.queue.add(key);
      // Nothing announces that a ready Pod became available, so look again once it should have.
      const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
      if (minReadySeconds > 0 && !isPodReady(oldPod) && isPodReady(newPod)) this.queue.addAfter(key, minReadySeconds * 1000);
      return;
    }
    if (labelsChanged || refChanged) {
      for (const rs of this.replicaSetsSelecting(newPod)) this.queue.add(metaNamespaceKeyFunc(rs));
    }
  }

  private podDeleted(deleted: Pod | DeletedFinalStateUnknown<Pod>, priority: Priority = "normal"): void {
    // A tombstone's Pod may be stale; a label change it missed waits for the next resync.
    const pod = finalStateOf(deleted);
    const ref = controllerRefOf(pod);
    if (!ref) return;
    const rs = this.resolveControllerRef(pod, ref);
    if (!rs) return;
    const key = metaNamespaceKeyFunc(rs);
    this.expectations.deletionObserved(key, podKey(pod));
    this.queue.add(key, { priority });
  }

  /** The cached ReplicaSet a controller reference points to: same name and UID, or none. */
  private resolveControllerRef(pod: Pod, ref: OwnerReference): ReplicaSet | undefined {
    if (ref.kind !== replicaSetKind) return undefined;
    const rs = this.replicaSets.namespace(pod.metadata?.namespace ?? "").get(ref.name);
    return rs?.metadata?.uid === ref.uid ? rs : undefined;
  }

  /** ReplicaSets in the Pod's namespace whose selector matches it; an empty or invalid selector matches nothing. */
  private replicaSetsSelecting(pod: Pod): ReplicaSet[] {
    const labels = pod.metadata?.labels;
    if (!labels || Object.keys(labels).length === 0) return [];
    return this.replicaSets.namespace(pod.metadata?.namespace ?? "").list().filter((rs) => {
      try {
        const selector = selectorFromLabelSelector(rs.spec?.selector);
        return selector.requirements.length > 0 && selector.matches(labels);
      } catch {
        return false;
      }
    });
  }
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const [entriesA, entriesB] = [Object.entries(a ?? {}), Object.entries(b ?? {})];
  return entriesA.length === entriesB.length && entriesA.every(([key, value]) => b?.[key] === value);
}

function sameOwnerRef(a: OwnerReference | undefined, b: OwnerReference | undefined): boolean {
  return a && b ? sameOwnerReference(a, b) : a === b;
}
