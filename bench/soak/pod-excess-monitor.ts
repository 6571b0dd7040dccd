// "Never more live Pods than replicas": follows each ReplicaSet's live Pods (controlled by it,
// no deletionTimestamp) against its spec.replicas, in revision order.
//
// Only a creation can overshoot. More live Pods than replicas right after a scale-down is the
// controller still deleting (scale-down lag, reported but allowed); a Pod created while the
// count is already at replicas is an overshoot, unless replicas was higher within the last
// in-flight grace (creations sent before the scale-down landing after it, which no controller
// can call back). An overshoot that outlasts the excess window is a violation.
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { ObservedChange } from "./observed-change.ts";
import type { SoakTally } from "./soak-tally.ts";

/** How long creations sent for a higher replica count may keep landing after a scale-down. */
const inFlightGraceMs = 3_000;

interface Episode {
  startedAt: number;
  peak: number;
  reported: boolean;
}

interface ReplicaSetState {
  name: string;
  /** Unknown until the ReplicaSet itself has been seen. */
  replicas: number | undefined;
  /** spec.replicas values that were replaced, with when; pruned after the grace. */
  recentReplicas: { replicas: number; until: number }[];
  live: Set<string>;
  overshoot: Episode | undefined;
  lag: Episode | undefined;
}

export interface PodExcessSummary {
  overshoots: number;
  /** Most Pods over replicas during any overshoot. */
  maxExcess: number;
  /** How long the overshoot with `maxExcess` lasted (ms). */
  maxExcessDurationMs: number;
  longestOvershootMs: number;
  /** Creations that landed within the in-flight grace after a scale-down (allowed). */
  inFlightCreations: number;
  longestScaleDownLagMs: number;
}

export class PodExcessMonitor {
  readonly #replicaSets = new Map<string, ReplicaSetState>();
  /** Live Pod UID → UID of the ReplicaSet controlling it. */
  readonly #podOwners = new Map<string, string>();
  /** The latest receive time delivered: the monitor's own clock, never going back. */
  #now = 0;
  readonly #summary: PodExcessSummary = {
    overshoots: 0,
    maxExcess: 0,
    maxExcessDurationMs: 0,
    longestOvershootMs: 0,
    inFlightCreations: 0,
    longestScaleDownLagMs: 0,
  };

  constructor(
    private readonly excessWindowMs: number,
    private readonly tally: SoakTally,
  ) {}

  get summary(): PodExcessSummary {
    return { ...this.#summary };
  }

  observe(change: ObservedChange): void {
    this.#now = Math.max(this.#now, change.receivedAt);
    if (change.resource === "replicasets") this.#observeReplicaSet(change);
    else if (change.resource === "pods") this.#observePod(change);
  }

  /** Called every second or so: an overshoot is a violation as soon as it outlasts the window. */
  tick(now: number): void {
    for (const state of this.#replicaSets.values()) {
      const episode = state.overshoot;
      if (episode && !episode.reported && now - episode.startedAt > this.excessWindowMs) this.#reportOvershoot(state, episode, now - episode.startedAt);
    }
  }

  #observeReplicaSet(change: ObservedChange): void {
    const uid = change.object.metadata?.uid ?? "";
    const state = this.#state(uid, change.object);
    if (change.type === "delete") {
      this.#close(state, this.#now);
      this.#replicaSets.delete(uid);
      return;
    }
    const replicas = (change.object as KubeObject & { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    if (state.replicas !== undefined && state.replicas !== replicas) state.recentReplicas.push({ replicas: state.replicas, until: this.#now });
    state.replicas = replicas;
    this.#evaluate(state, false, change.revision);
  }

  #observePod(change: ObservedChange): void {
    const pod = change.object;
    const uid = pod.metadata?.uid ?? "";
    const ref = controllerRefOf(pod);
    const owner = ref?.kind === "ReplicaSet" ? ref.uid : undefined;
    const live = change.type === "upsert" && !pod.metadata?.deletionTimestamp && owner !== undefined;
    const previousOwner = this.#podOwners.get(uid);
    if (previousOwner !== undefined && (!live || previousOwner !== owner)) {
      this.#podOwners.delete(uid);
      const previous = this.#replicaSets.get(previousOwner);
      if (previous) {
        previous.live.delete(uid);
        this.#evaluate(previous, false, change.revision);
      }
    }
    if (live && owner !== undefined && previousOwner !== owner) {
      this.#podOwners.set(uid, owner);
      const state = this.#state(owner);
      state.live.add(uid);
      this.#evaluate(state, change.created, change.revision);
    }
  }

  #state(uid: string, replicaSet?: KubeObject): ReplicaSetState {
    let state = this.#replicaSets.get(uid);
    if (!state) {
      state = { name: "", replicas: undefined, recentReplicas: [], live: new Set(), overshoot: undefined, lag: undefined };
      this.#replicaSets.set(uid, state);
    }
    if (replicaSet?.metadata?.name) state.name = `${replicaSet.metadata.namespace}/${replicaSet.metadata.name}`;
    return state;
  }

  #evaluate(state: ReplicaSetState, created: boolean, revision: number): void {
    if (state.replicas === undefined) return;
    const now = this.#now;
    const excess = state.live.size - state.replicas;
    if (excess <= 0) {
      this.#close(state, now);
      return;
    }
    if (created && !state.overshoot) {
      state.recentReplicas = state.recentReplicas.filter((entry) => now - entry.until <= inFlightGraceMs);
      const recentMax = Math.max(state.replicas, ...state.recentReplicas.map((entry) => entry.replicas));
      if (state.live.size > recentMax) {
        state.overshoot = { startedAt: now, peak: excess, reported: false };
        console.error(`[soak] overshoot: ${state.name} has ${state.live.size} live Pods for ${state.replicas} replicas at revision ${revision}`);
      } else {
        this.#summary.inFlightCreations++;
      }
    }
    if (state.overshoot) state.overshoot.peak = Math.max(state.overshoot.peak, excess);
    if (!state.overshoot && !state.lag) state.lag = { startedAt: now, peak: excess, reported: false };
  }

  #close(state: ReplicaSetState, now: number): void {
    const overshoot = state.overshoot;
    if (overshoot) {
      const durationMs = now - overshoot.startedAt;
      this.#summary.overshoots++;
      this.#summary.longestOvershootMs = Math.max(this.#summary.longestOvershootMs, durationMs);
      if (overshoot.peak > this.#summary.maxExcess) {
        this.#summary.maxExcess = overshoot.peak;
        this.#summary.maxExcessDurationMs = durationMs;
      }
      if (!overshoot.reported && durationMs > this.excessWindowMs) this.#reportOvershoot(state, overshoot, durationMs);
      state.overshoot = undefined;
    }
    if (state.lag) {
      this.#summary.longestScaleDownLagMs = Math.max(this.#summary.longestScaleDownLagMs, now - state.lag.startedAt);
      state.lag = undefined;
    }
  }

  #reportOvershoot(state: ReplicaSetState, episode: Episode, durationMs: number): void {
    episode.reported = true;
    this.tally.violation(
      "pod-excess",
      `${state.name} had up to ${episode.peak} live Pods more than spec.replicas for ${(durationMs / 1000).toFixed(1)} s (window ${this.excessWindowMs / 1000} s)`,
    );
  }
}
