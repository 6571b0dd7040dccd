// Knows, from its own watch, when ReplicaSets have converged on a size: spec.replicas at the
// target and status.replicas equal to it, computed from the current generation. A burst is over
// when every ReplicaSet has.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { type ReplicaSet, statusMatches } from "../../test/replicaset/replicaset-fixture.ts";
import { ResourceEvents } from "./resource-events.ts";

export class ReplicaSetConvergence {
  readonly #latest = new Map<string, ReplicaSet>();
  readonly #pending = new Set<string>();
  #target: (rs: ReplicaSet) => number = () => Number.NaN;
  #converged = Promise.withResolvers<number>();
  #events: ResourceEvents<ReplicaSet> | undefined;

  private constructor(private readonly counted: (rs: ReplicaSet) => boolean) {}

  /** Starts following every ReplicaSet `counted` selects. */
  static async start(client: KubeClient, counted: (rs: ReplicaSet) => boolean): Promise<ReplicaSetConvergence> {
    const tracker = new ReplicaSetConvergence(counted);
    const list = await client.dynamic.resource<ReplicaSet>(resources.replicaSets).list({});
    for (const rs of list.items) tracker.#observe(rs);
    tracker.#events = await ResourceEvents.follow(client, resources.replicaSets, { resourceVersion: list.metadata?.resourceVersion ?? "" }, (type, rs) => {
      if (type !== "DELETED") tracker.#observe(rs);
    });
    return tracker;
  }

  /**
   * Resolves with performance.now() at the first moment every followed ReplicaSet has `target(rs)`
   * replicas in its spec and its status; rejects after `timeoutMs`.
   */
  async convergedOn(target: (rs: ReplicaSet) => number, timeoutMs: number): Promise<number> {
    this.#target = target;
    this.#converged = Promise.withResolvers<number>();
    this.#pending.clear();
    for (const rs of this.#latest.values()) this.#check(rs);
    const timeout = setTimeout(() => this.#converged.reject(new Error(`${this.#pending.size} ReplicaSets not converged after ${timeoutMs} ms`)), timeoutMs);
    try {
      return await this.#converged.promise;
    } finally {
      clearTimeout(timeout);
    }
  }

  get pending(): number {
    return this.#pending.size;
  }

  async close(): Promise<void> {
    await this.#events?.close();
  }

  #observe(rs: ReplicaSet): void {
    if (!this.counted(rs)) return;
    this.#latest.set(keyOf(rs), rs);
    this.#check(rs);
  }

  #check(rs: ReplicaSet): void {
    const target = this.#target(rs);
    if (rs.spec?.replicas === target && statusMatches(rs, { replicas: target })) this.#pending.delete(keyOf(rs));
    else this.#pending.add(keyOf(rs));
    if (this.#pending.size === 0) this.#converged.resolve(performance.now());
  }
}

function keyOf(rs: ReplicaSet): string {
  return `${rs.metadata?.namespace}/${rs.metadata?.name}`;
}
