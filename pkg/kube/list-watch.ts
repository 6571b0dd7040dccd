// The two calls an informer needs from the API server. The dynamic client's resource
// clients implement it; unit tests of the informer machinery implement it in memory.
import type { KubeObject, ObjectList, WatchEvent } from "./objects.ts";

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** "0" lets the API server answer from its watch cache; "" (absent) asks for a quorum read. */
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  allowWatchBookmarks?: boolean;
  /** The server closes the stream after this many seconds. */
  timeoutSeconds?: number;
  /** Streaming list (KEP-3157): the server sends the current state as ADDED events first. */
  sendInitialEvents?: boolean;
}

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
