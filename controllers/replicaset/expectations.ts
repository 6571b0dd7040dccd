// kube-controller-manager's UIDTrackingControllerExpectations: what a ReplicaSet is still waiting
// to see through the Pod informer after it created or deleted Pods. While creations or deletions
// are outstanding the cache is stale for that ReplicaSet, so it must not create or delete again,
// or a lagging watch would make it over-create or delete a Pod twice.
// Unlike upstream, creations the API server answered are also met once the Pod cache has reached
// the resourceVersion of the newest: the cache has seen every one of them by then, whether the Pod
// is still there or was deleted since. A relist can hide a Pod created and deleted between two
// lists, and no add event then ever comes; upstream waits out the five-minute timeout.
import { type Clock, realClock } from "../../pkg/clock/clock.ts";
import { compareResourceVersions } from "../../pkg/kube/resource-version.ts";

/** Expectations older than this are treated as satisfied: a watch event can be lost for good. */
export const expectationsTimeoutMs = 5 * 60_000;

interface Expectation {
  creations: number;
  deletions: number;
  setAt: number;
  /** Creations not known to have been made or not: sent without an answer yet, lost answers included. */
  unanswered: number;
  /** The newest resourceVersion of the Pods the API server answered a creation with ("" for none). */
  answeredUpTo: string;
}

export class PodExpectations {
  private readonly expectations = new Map<string, Expectation>();
  /** Keys of the Pods whose deletion each ReplicaSet waits for, so each counts once (update with deletionTimestamp, then delete). */
  private readonly pendingDeletions = new Map<string, Set<string>>();

  constructor(
    private readonly clock: Clock = realClock,
    private readonly timeoutMs = expectationsTimeoutMs,
  ) {}

  /**
   * True when the ReplicaSet may act on the cache: nothing outstanding, expired, never set, or only
   * answered creations that the Pod cache, at `podCacheVersion` in the ReplicaSet's namespace ("":
   * cannot tell), has reached.
   */
  satisfied(controllerKey: string, podCacheVersion = ""): boolean {
    const expectation = this.expectations.get(controllerKey);
    if (!expectation) return true;
    if (expectation.creations <= 0 && expectation.deletions <= 0) return true;
    if (this.clock.monotonic() - expectation.setAt > this.timeoutMs) return true;
    const { deletions, unanswered, answeredUpTo } = expectation;
    return deletions <= 0 && unanswered <= 0 && answeredUpTo !== "" && podCacheVersion !== "" && (compareResourceVersions(podCacheVersion, answeredUpTo) ?? -1) >= 0;
  }

  /** Replaces the ReplicaSet's expectations with `count` creations. */
  expectCreations(controllerKey: string, count: number): void {
    this.expectations.set(controllerKey, { creations: count, deletions: 0, setAt: this.clock.monotonic(), unanswered: count, answeredUpTo: "" });
  }

  /** The API server stored a Pod the ReplicaSet expects, at `resourceVersion`. */
  creationAnswered(controllerKey: string, resourceVersion: string): void {
    const expectation = this.expectations.get(controllerKey);
    if (!expectation) return;
    expectation.unanswered--;
    const newer = expectation.answeredUpTo === "" || (compareResourceVersions(resourceVersion, expectation.answeredUpTo) ?? 1) > 0;
    if (newer) expectation.answeredUpTo = resourceVersion;
  }

  /** An expected creation will never happen: refused, skipped, or found not made after all. */
  creationNotMade(controllerKey: string): void {
    const expectation = this.expectations.get(controllerKey);
    if (!expectation) return;
    expectation.creations--;
    expectation.unanswered--;
  }

  /** Replaces the ReplicaSet's expectations with the deletion of exactly these Pods. */
  expectDeletions(controllerKey: string, podKeys: readonly string[]): void {
    const keys = new Set(podKeys);
    this.pendingDeletions.set(controllerKey, keys);
    this.expectations.set(controllerKey, { creations: 0, deletions: keys.size, setAt: this.clock.monotonic(), unanswered: 0, answeredUpTo: "" });
  }

  /** A Pod of the ReplicaSet appeared in the cache. */
  creationObserved(controllerKey: string): void {
    const expectation = this.expectations.get(controllerKey);
    if (expectation) expectation.creations--;
  }

  /** The Pod went away or got a deletionTimestamp; counts only for an expected Pod, and only once. */
  deletionObserved(controllerKey: string, podKey: string): void {
    const pending = this.pendingDeletions.get(controllerKey);
    if (!pending?.delete(podKey)) return;
    const expectation = this.expectations.get(controllerKey);
    if (expectation) expectation.deletions--;
  }

  /** Forgets the ReplicaSet, so one recreated under the same name starts clean. */
  delete(controllerKey: string): void {
    this.expectations.delete(controllerKey);
    this.pendingDeletions.delete(controllerKey);
  }
}
