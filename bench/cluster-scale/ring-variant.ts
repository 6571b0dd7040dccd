// The two ways a shard ring's replicas get their share of the objects: the API server filters
// (feature gate ShardedListAndWatch on) or each replica filters what it receives (gate off).

export type ShardFilter = "server" | "client";

export type RingVariant = "ring, server filter" | "ring, client filter";

export function ringVariant(filter: ShardFilter): RingVariant {
  return filter === "server" ? "ring, server filter" : "ring, client filter";
}

/** The line each replica logs once it knows which (pkg/informer/shard-filter-probe.ts). */
export function filterLogLine(filter: ShardFilter): RegExp {
  return filter === "server" ? /"msg":"the API server filters by shard"/ : /"msg":"filtering by shard in this process/;
}

/** kube-apiserver's flags for it; v1.37.2 has the gate, off by default. */
export function apiserverFilterArgs(filter: ShardFilter): string[] {
  return [`--feature-gates=ShardedListAndWatch=${filter === "server"}`];
}
