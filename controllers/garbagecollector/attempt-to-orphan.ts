// The attemptToOrphan worker: an owner deleted with propagationPolicy=Orphan carries the orphan
// finalizer; its dependents lose their reference to it, then the finalizer comes off and the
// API server deletes the owner alone. Any failure retries the whole owner. As upstream, it acts
// on the dependents the graph knows, whether or not every monitor has synced.
import type { Reconciler, ReconcileResult } from "../../pkg/controller/reconciler.ts";
import { describeIdentity, type GraphNode, identityOf } from "./graph.ts";
import { noopGarbageCollectorMetrics, type GarbageCollectorMetrics } from "./metrics.ts";
import type { ObjectApi } from "./object-api.ts";
import { orphanFinalizer } from "./owner-references.ts";

export interface AttemptToOrphanOptions {
  api: ObjectApi;
  metrics?: Pick<GarbageCollectorMetrics, "referencesRemoved">;
}

export class AttemptToOrphan implements Reconciler<GraphNode> {
  private readonly metrics: Pick<GarbageCollectorMetrics, "referencesRemoved">;

  constructor(private readonly options: AttemptToOrphanOptions) {
    this.metrics = options.metrics ?? noopGarbageCollectorMetrics;
  }

  async reconcile(owner: GraphNode): Promise<ReconcileResult> {
    const { api } = this.options;
    const identity = identityOf(owner);
    const dependents = [...owner.dependents].map(identityOf);
    const results = await Promise.allSettled(dependents.map((dependent) => api.removeOwnerReferences(dependent, [identity.uid])));
    const failures = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
    this.metrics.referencesRemoved(dependents.length - failures.length);
    if (failures.length > 0) {
      const first = failures[0]?.reason;
      throw new Error(
        `orphaning ${failures.length} of ${dependents.length} dependents of ${describeIdentity(identity)} failed, e.g.: ${first instanceof Error ? first.message : String(first)}`,
      );
    }
    await api.removeFinalizer(identity, orphanFinalizer);
  }
}
