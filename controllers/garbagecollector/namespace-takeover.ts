// In a shard ring, the member that starts acting on a namespace looks again at the graph's nodes
// there: while another member held it, this one dropped the work its graph changes queued, and a
// member that died may have left a collection half done. Queued again: owners being deleted with
// the orphan finalizer to have their dependents orphaned (the graph queues them only when that
// deletion starts), owners never observed or being deleted otherwise, and every dependent whose
// owner is missing, virtual or being deleted.
import { followNewlyActing, type NamespaceOwnership } from "../../pkg/shardelection/namespace-ownership.ts";
import type { DependencyGraph, GraphNode } from "./graph.ts";

interface Queues {
  attemptToDelete: { add(node: GraphNode): void };
  attemptToOrphan: { add(node: GraphNode): void };
}

export function followNamespaceTakeovers(ownership: NamespaceOwnership, graph: DependencyGraph, { attemptToDelete, attemptToOrphan }: Queues): () => void {
  const known = function* () {
    for (const node of graph.values()) yield node.namespace ?? "";
  };
  return followNewlyActing(ownership, known, (namespaces) => {
    for (const node of graph.values()) {
      if (!namespaces.has(node.namespace ?? "")) continue;
      if (node.orphaningDependents) attemptToOrphan.add(node);
      else if (needsAnotherLook(node, graph)) attemptToDelete.add(node);
    }
  });
}

function needsAnotherLook(node: GraphNode, graph: DependencyGraph): boolean {
  if (node.virtual || node.beingDeleted) return true;
  return node.owners.some((ref) => {
    const owner = graph.get(ref.uid);
    return owner === undefined || owner.virtual || owner.beingDeleted;
  });
}
