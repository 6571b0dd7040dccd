// The hash of a namespace's name, remembered: a cluster has few namespaces and every object of a
// sharded informer asks for its own, so each name is hashed once per process.
import { fnv1a64 } from "./fnv1a64.ts";
import { type HashRange, rangesContain } from "./hash-range.ts";

const namespaceHashes = new Map<string, bigint>();

/** FNV-1a 64 of the namespace's name ("" for cluster-scoped objects), as the API server's shardRange computes it. */
export function namespaceHash(namespace: string): bigint {
  let hash = namespaceHashes.get(namespace);
  if (hash === undefined) {
    hash = fnv1a64(namespace);
    namespaceHashes.set(namespace, hash);
  }
  return hash;
}

/** True when the namespace falls in one of `ranges` (normalized). */
export function rangesHoldNamespace(ranges: readonly HashRange[], namespace: string): boolean {
  return rangesContain(ranges, namespaceHash(namespace));
}
