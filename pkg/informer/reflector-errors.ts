// Why a reflector gave up on a watch without the server having said so, and how it reads the
// errors the server does send (client-go's reflector helpers). Each is the server's or the
// network's doing, so an ExpectedError: logged as one line, never with a stack.
import { ExpectedError } from "../errors/expected-error.ts";
import { ApiError, TransportError, isTooManyRequests } from "../kube/errors.ts";

/** The watch ended within a second without delivering a single event: treated as a failure for backoff. */
export class VeryShortWatchError extends ExpectedError {
  override readonly name = "VeryShortWatchError";
}

/** No event, not even a bookmark, arrived for the idle timeout: the connection is presumed dead. */
export class WatchIdleError extends ExpectedError {
  override readonly name = "WatchIdleError";
}

/** A streaming list never marked the end of its initial events, or was rejected: the reflector falls back to LIST. */
export class WatchListUnsupportedError extends ExpectedError {
  override readonly name = "WatchListUnsupportedError";
}

/**
 * The server has not caught up with the requested resourceVersion yet (its watch cache is
 * behind, or the version came from another cluster's etcd). Servers since 1.19 say so with a
 * ResourceVersionTooLarge cause; older ones only with a 504 whose text names it.
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const causes = err.status?.details?.causes ?? [];
  if (causes.some((cause) => cause.reason === "ResourceVersionTooLarge")) return true;
  if (err.code !== 504) return false;
  return causes.some((cause) => cause.message === "Too large resource version") || (err.status?.message ?? "").includes("Too large resource version");
}

/**
 * A watch that could not be opened for one of these reasons is reopened at the same
 * resourceVersion after a backoff: the server is down or busy, and the objects seen so far
 * are still good. Any other failure to open a watch ends in a relist.
 */
export function isWatchErrorRetriable(err: unknown): boolean {
  if (isTooManyRequests(err)) return true;
  return err instanceof TransportError && (err.code === "ECONNREFUSED" || err.code === "ConnectionRefused");
}
