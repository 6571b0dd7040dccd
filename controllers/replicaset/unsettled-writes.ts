// The Pod creates and deletes whose answer was lost (see mayHaveTakenEffect): the API server may
// or may not have carried them out. kube-controller-manager counts them as failed, so a create
// that did happen is followed by a second one as soon as the cache lags behind, and the surplus
// Pod is deleted later. Here each stays expected and is sent again, unchanged, at the next sync:
// the create under the same name, the delete with the same UID precondition. The repeat is
// harmless either way, and its answer (created, AlreadyExists, deleted, NotFound) settles it.
import type { V1Pod } from "@kubernetes/client-node";
import { ApiError } from "../../pkg/kube/errors.ts";
import type { Wire } from "../../pkg/kube/objects.ts";

type Pod = Wire<V1Pod>;

/**
 * True when a write failed without a definite answer, so the server may have carried it out: no
 * HTTP answer at all (reset, timeout), or a 5xx, which a server or a proxy may send after the write
 * was stored. A 4xx means the write was refused and nothing changed.
 */
export function mayHaveTakenEffect(err: unknown): boolean {
  return !(err instanceof ApiError) || err.code >= 500;
}

export class UnsettledWrites {
  /** Per ReplicaSet key: names of Pods whose create may have happened. */
  private readonly creations = new Map<string, Set<string>>();
  /** Per ReplicaSet key: Pods (by Pod key) whose delete may have happened. */
  private readonly deletions = new Map<string, Map<string, Pod>>();

  creationUnsettled(controllerKey: string, podName: string): void {
    this.setOf(this.creations, controllerKey, () => new Set()).add(podName);
  }

  deletionUnsettled(controllerKey: string, podKey: string, pod: Pod): void {
    this.setOf(this.deletions, controllerKey, () => new Map()).set(podKey, pod);
  }

  /** Names to create again, and forgets them: a repeat that fails again is recorded anew. */
  takeCreations(controllerKey: string): string[] {
    const names = [...(this.creations.get(controllerKey) ?? [])];
    this.creations.delete(controllerKey);
    return names;
  }

  /** Pods to delete again, and forgets them. */
  takeDeletions(controllerKey: string): Pod[] {
    const pods = [...(this.deletions.get(controllerKey)?.values() ?? [])];
    this.deletions.delete(controllerKey);
    return pods;
  }

  /** Forgets the ReplicaSet, as its expectations are forgotten. */
  delete(controllerKey: string): void {
    this.creations.delete(controllerKey);
    this.deletions.delete(controllerKey);
  }

  private setOf<T>(map: Map<string, T>, key: string, empty: () => T): T {
    let value = map.get(key);
    if (value === undefined) {
      value = empty();
      map.set(key, value);
    }
    return value;
  }
}
