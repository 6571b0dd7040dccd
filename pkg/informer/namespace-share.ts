// The seam between informers and whatever decides which namespaces this process holds (the shard
// ring, from a layer above): informers of namespaced resources listed across all namespaces
// cache only the namespaces whose name hashes into the share's ranges (KEP-5866).
import type { GroupVersionResource } from "../kube/gvr.ts";
import type { HashRange } from "../sharding/hash-range.ts";

/** The namespace-hash ranges this process caches, and word when they change. */
export interface NamespaceShare {
  /** The ranges of FNV-1a 64 over namespace names to cache now (normalized, possibly empty). */
  ranges(): readonly HashRange[];
  /** Calls `listener` after ranges() changed. Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** How a factory's informers are sharded (SharedInformerFactoryOptions.sharding). */
export interface InformerSharding {
  /** The namespaces to cache. */
  share: NamespaceShare;
  /**
   * Whether a resource is namespaced, for resources given without their scope (a plain
   * GroupVersionResource rather than a ResourceType; e.g. from discovery, as the garbage
   * collector's monitors are). Asked once per such informer, when it starts.
   */
  isNamespaced(gvr: GroupVersionResource): Promise<boolean>;
}

/** What a sharded informer was told at start: its share, and whether the API server filters by it. */
export interface ShardPlan {
  share: NamespaceShare;
  /** The API server applies shardSelector: lists and watches ask only for the share's ranges. */
  serverFilters: boolean;
}

/** A sharded informer's state, for the status page and metrics. */
export interface ShardStatus {
  /** The ranges its segments cover now. */
  ranges: readonly HashRange[];
  /** The part of `ranges` whose objects are in the cache. */
  syncedRanges: readonly HashRange[];
  /** The API server filters (else this process drops what is outside the ranges). */
  serverFilters: boolean;
  /** Reflectors running, one per segment of ranges. */
  segments: number;
}
