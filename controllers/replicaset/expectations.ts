// kube-controller-manager's UIDTrackingControllerExpectations: what a ReplicaSet is still waiting
// to see through the Pod informer after it created or deleted Pods. While creations or deletions
// are outstanding the cache is stale for that ReplicaSet, so it must not create or delete again,
// or a lagging watch would make it over-create or delete a Pod twice.
import { type Clock, realClock } from "../../pkg/clock/clock.ts";

/** Expectations older than this are treated as satisfied: a watch event can be lost for good. */
export const expectationsTimeoutMs = 5 * 60_000;

interface Expectation {
  creations: number;
  deletions: number;
  setAt: number;
}

export class PodExpectations {
  private readonly expectations = new Map<string, Expectation>();
  /** Keys of the Pods whose deletion each ReplicaSet waits for, so each counts once (update with deletionTimestamp, then delete). */
  private readonly pendingDeletions = new Map<string, Set<string>>();

  constructor(
    private readonly clock: Clock = realClock,
    private readonly timeoutMs = expectationsTimeoutMs,
  ) {}

  /** True when the ReplicaSet may act on the cache: nothing outstanding, expired, or never set. */
  satisfied(controllerKey: string): boolean {
    const expectation = this.expectations.get(controllerKey);
    if (!expectation) return true;
    if (expectation.creations <= 0 && expectation.deletions <= 0) return true;
    return this.clock.monotonic() - expectation.setAt > this.timeoutMs;
  }

  /** Replaces the ReplicaSet's expectations with `count` creations. */
  expectCreations(controllerKey: string, count: number): void {
    this.expectations.set(controllerKey, { creations: count, deletions: 0, setAt: this.clock.monotonic() });
  }

  /** Replaces the ReplicaSet's expectations with the deletion of exactly these Pods. */
  expectDeletions(controllerKey: string, podKeys: readonly string[]): void {
    const keys = new Set(podKeys);
    this.pendingDeletions.set(controllerKey, keys);
    this.expectations.set(controllerKey, { creations: 0, deletions: keys.size, setAt: this.clock.monotonic() });
  }

  /** A Pod of the ReplicaSet appeared, or a creation will never happen (failed or skipped). */
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
