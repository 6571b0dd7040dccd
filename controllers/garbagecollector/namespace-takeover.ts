// In a shard ring, the member that starts acting on a namespace looks again at the graph's nodes
// there: while another member held it, this one dropped the work its graph changes queued, and a
// member that died may have left a collection half done. Queued again: owners never observed or
// being deleted, and every dependent whose owner is missing, virtual or being deleted.
import type { NamespaceOwnership } from "../../pkg/shardelection/namespace-ownership.ts";
import type { DependencyGraph, GraphNode } from "./graph.ts";

export function followNamespaceTakeovers(ownership: NamespaceOwnership, graph: DependencyGraph, attemptToDelete: { add(node: GraphNode): void }): () => void {
  let acting = new Set<string>();
  return ownership.onChange(() => {
    const now = new Set<string>();
    for (const node of graph.values()) {
      const namespace = node.namespace ?? "";
      if (ownership.verdict(namespace) !== "act") continue;
      now.add(namespace);
      if (!acting.has(namespace) && needsAnotherLook(node, graph)) attemptToDelete.add(node);
    }
    acting = now;
  });
}

function needsAnotherLook(node: GraphNode, graph: DependencyGraph): boolean {
  if (node.virtual || node.beingDeleted) return true;
  return node.owners.some((ref) => {
    const owner = graph.get(ref.uid);
    return owner === undefined || owner.virtual || owner.beingDeleted;
  });
}
