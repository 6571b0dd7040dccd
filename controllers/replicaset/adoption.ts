// kube-controller-manager's PodControllerRefManager.ClaimPods: decide which Pods a ReplicaSet owns,
// adopting matching orphans and releasing owned Pods whose labels stopped matching. Pods controlled
// by anything else are never touched.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import { isInvalid, isNotFound } from "../../pkg/kube/errors.ts";
import type { Wire } from "../../pkg/kube/objects.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import type { Selector } from "../../pkg/labels/selector.ts";
import { controllerRefTo, failureMessage } from "./pod-control.ts";

type Pod = Wire<V1Pod>;
type ReplicaSet = Wire<V1ReplicaSet>;

/** Reads the ReplicaSet from the API server itself, not the cache. */
export type FreshReplicaSetReader = () => Promise<ReplicaSet>;

/** Sends a strategic merge patch to a Pod (PodControl in production). */
export interface PodPatcher {
  patchPod(pod: Pod, patch: object): Promise<void>;
}

/** One claim pass of one sync; the uncached check before the first adoption runs at most once per pass. */
export class PodClaim {
  private canAdopt: Promise<void> | undefined;

  constructor(
    private readonly rs: ReplicaSet,
    private readonly selector: Selector,
    private readonly patcher: PodPatcher,
    private readonly readFresh: FreshReplicaSetReader,
  ) {}

  /** The Pods the ReplicaSet owns after adopting and releasing; throws if any adoption or release failed. */
  async claim(pods: readonly Pod[]): Promise<Pod[]> {
    const claimed: Pod[] = [];
    const failures: Error[] = [];
    for (const pod of pods) {
      try {
        if (await this.claimOne(pod)) claimed.push(pod);
      } catch (err) {
        failures.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} pods could not be claimed, first: ${failures[0]?.message}`);
    return claimed;
  }

  private async claimOne(pod: Pod): Promise<boolean> {
    const rsBeingDeleted = !!this.rs.metadata?.deletionTimestamp;
    const matches = this.selector.matches(pod.metadata?.labels);
    const ref = controllerRefOf(pod);
    if (ref) {
      if (ref.uid !== this.rs.metadata?.uid) return false;
      // Keeping what it already owns takes no write, so it is allowed even while being deleted.
      if (matches) return true;
      if (!rsBeingDeleted) await this.release(pod);
      return false;
    }
    if (rsBeingDeleted || !matches || pod.metadata?.deletionTimestamp) return false;
    if (pod.metadata?.namespace !== this.rs.metadata?.namespace) return false;
    return this.adopt(pod);
  }

  private async adopt(pod: Pod): Promise<boolean> {
    try {
      await this.checkCanAdopt();
    } catch (err) {
      throw new Error(`can't adopt Pod ${describePod(pod)}: ${failureMessage(err)}`, { cause: err });
    }
    try {
      // The Pod's UID in the patch is a precondition: a Pod recreated under the same name is not adopted.
      await this.patcher.patchPod(pod, { metadata: { ownerReferences: [controllerRefTo(this.rs)], uid: pod.metadata?.uid } });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private async release(pod: Pod): Promise<void> {
    try {
      await this.patcher.patchPod(pod, { metadata: { ownerReferences: [{ $patch: "delete", uid: this.rs.metadata?.uid }], uid: pod.metadata?.uid } });
    } catch (err) {
      // Gone, or recreated under the same name (UID precondition failed): nothing left to release.
      if (isNotFound(err) || isInvalid(err)) return;
      throw err;
    }
  }

  /** Before adopting, make sure the cached ReplicaSet is not stale: same UID, not being deleted (kubernetes#42639). */
  private checkCanAdopt(): Promise<void> {
    this.canAdopt ??= this.readFresh().then(
      (fresh) => {
        const { namespace, name, uid } = this.rs.metadata ?? {};
        if (fresh.metadata?.uid !== uid) {
          throw new Error(`original ReplicaSet ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid}, wanted ${uid}`);
        }
        if (fresh.metadata?.deletionTimestamp) {
          throw new Error(`${namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
        }
      },
      (err: unknown) => {
        throw new Error(`can't recheck DeletionTimestamp: ${failureMessage(err)}`, { cause: err });
      },
    );
    return this.canAdopt;
  }
}

function describePod(pod: Pod): string {
  return `${pod.metadata?.namespace}/${pod.metadata?.name} (${pod.metadata?.uid})`;
}
