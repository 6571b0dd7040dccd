// Why a reflector gave up on a watch without the server having said so.

/** The watch ended within a second without delivering a single event: treated as a failure for backoff. */
export class VeryShortWatchError extends Error {
  override readonly name = "VeryShortWatchError";
}

/** No event, not even a bookmark, arrived for the idle timeout: the connection is presumed dead. */
export class WatchIdleError extends Error {
  override readonly name = "WatchIdleError";
}

/** A streaming list never marked the end of its initial events, or was rejected: the reflector falls back to LIST. */
export class WatchListUnsupportedError extends Error {
  override readonly name = "WatchListUnsupportedError";
}
