// Orphaning an owner and finishing its foreground deletion act on "all its dependents", which
// only the graph knows: while a monitored resource has not synced, a dependent of that type may
// be missing, and orphaning without it would let it be collected later. Those steps wait (and
// say so once per owner with an Event) instead; plain deletions need no complete graph.
import type { RequeueAfter } from "../../pkg/controller/reconciler.ts";
import type { GraphNode, ObjectIdentity } from "./graph.ts";

/** How long a waiting step waits before looking again. */
const graphSyncPollMs = 5000;

export interface CompletenessGate {
  /** undefined when the graph is complete; otherwise when to try again. */
  waitFor(owner: GraphNode): RequeueAfter | undefined;
}

export class GraphCompleteness implements CompletenessGate {
  private readonly told = new WeakSet<GraphNode>();

  constructor(
    /** The monitored resources whose informers have not synced. */
    private readonly unsyncedResources: () => string[],
    private readonly report: (owner: ObjectIdentity, message: string) => void,
  ) {}

  waitFor(owner: GraphNode): RequeueAfter | undefined {
    const unsynced = this.unsyncedResources();
    if (unsynced.length === 0) return undefined;
    if (!this.told.has(owner)) {
      this.told.add(owner);
      this.report(owner, `waiting for the garbage collector to list every resource before acting on all dependents; not listed yet: ${unsynced.join(", ")}`);
    }
    return { requeueAfterMs: graphSyncPollMs };
  }
}
