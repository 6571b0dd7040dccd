// In a shard ring, the member that starts acting on a namespace looks again at the graph's nodes
// there: while another member held it, this one dropped the work its graph changes queued, and a
// member that died may have left a collection half done. Queued again: owners never observed or
// being deleted, and every dependent whose owner is missing, virtual or being deleted.
import { followNewlyActing, type NamespaceOwnership } from "../../pkg/shardelection/namespace-ownership.ts";
import type { DependencyGraph, GraphNode } from "./graph.ts";

export function followNamespaceTakeovers(ownership: NamespaceOwnership, graph: DependencyGraph, attemptToDelete: { add(node: GraphNode): void }): () => void {
  const known = function* () {
    for (const node of graph.values()) yield node.namespace ?? "";
  };
  return followNewlyActing(ownership, known, (namespaces) => {
    for (const node of graph.values()) if (namespaces.has(node.namespace ?? "") && needsAnotherLook(node, graph)) attemptToDelete.add(node);
  });
}

function needsAnotherLook(node: GraphNode, graph: DependencyGraph): boolean {
  if (node.virtual || node.beingDeleted) return true;
  return node.owners.some((ref) => {
    const owner = graph.get(ref.uid);
    return owner === undefined || owner.virtual || owner.beingDeleted;
  });
}
