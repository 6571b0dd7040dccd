// The two calls an informer needs from the API server. The dynamic client's resource
// clients implement it; unit tests of the informer machinery implement it in memory.
import type { KubeObject, ObjectList, WatchEvent } from "./objects.ts";

/** Query parameters of a LIST (metav1.ListOptions). */
export interface ListOptions {
  /** e.g. "app=web,tier!=cache". */
  labelSelector?: string | undefined;
  /** e.g. "spec.nodeName=node-1"; each resource supports a few fields only. */
  fieldSelector?: string | undefined;
  /** "0" lets the API server answer from its watch cache; "" (absent) asks for a quorum read. */
  resourceVersion?: string | undefined;
  /** How `resourceVersion` is read: at least that recent, or exactly that version. */
  resourceVersionMatch?: "NotOlderThan" | "Exact" | undefined;
  /** At most this many items; the rest come through `continue`. */
  limit?: number | undefined;
  /** The token of the previous page's `metadata.continue`. */
  continue?: string | undefined;
  /** The server gives up after this many seconds. */
  timeoutSeconds?: number | undefined;
  /**
   * Only objects whose field hashes into the ranges, e.g. `shardRange(object.metadata.namespace, '0x…', '0x…')`
   * (KEP-5866; pkg/sharding's shardSelector). A server without the ShardedListAndWatch gate ignores it:
   * the list's `metadata.shardInfo` tells whether it was applied.
   */
  shardSelector?: string | undefined;
}

/** Query parameters of a WATCH. */
export interface WatchOptions {
  /** e.g. "app=web". */
  labelSelector?: string | undefined;
  /** e.g. "metadata.name=web-0". */
  fieldSelector?: string | undefined;
  /** Changes after this version; absent or "0": the current state first, as ADDED events. */
  resourceVersion?: string | undefined;
  /** "NotOlderThan" with `sendInitialEvents`. */
  resourceVersionMatch?: "NotOlderThan" | "Exact" | undefined;
  /** The server may send BOOKMARK events: only a newer resourceVersion, to resume from. */
  allowWatchBookmarks?: boolean | undefined;
  /** The server closes the stream after this many seconds. */
  timeoutSeconds?: number | undefined;
  /** Streaming list (KEP-3157): the server sends the current state as ADDED events first. */
  sendInitialEvents?: boolean | undefined;
  /** As ListOptions.shardSelector; a watch does not say whether the server applied it. */
  shardSelector?: string | undefined;
}

/** The annotation on the BOOKMARK that ends a streaming list's initial events. */
export const initialEventsEndAnnotation = "k8s.io/initial-events-end";

/**
 * The object the caller holds already under this namespace ("" when cluster-scoped) and name,
 * if it is that very resourceVersion; else undefined. An informer gives its cache: a decoder
 * that reads an item's metadata first hands back the cached object instead of building a copy
 * that a relist would throw away.
 */
export type HeldVersion = (namespace: string, name: string, resourceVersion: string) => KubeObject | undefined;

/** The two calls an informer makes for one resource collection: LIST and WATCH. */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  /** One page of a LIST. Throws ApiError (e.g. 410 Expired) or TransportError. */
  list(options: ListOptions, signal?: AbortSignal): Promise<ObjectList<T>>;
  /**
   * Opens a WATCH. Resolves once the server answered 200 (an HTTP error throws ApiError);
   * the iterable then yields events until the server ends the stream, the connection
   * breaks (the iterator throws) or `signal` aborts (the iterator ends quietly).
   */
  watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>>;
}
