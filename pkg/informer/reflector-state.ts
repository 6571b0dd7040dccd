// What a reflector is doing, and the one function that decides what it does next from what just
// happened (the model is kube-rs's watcher `State` and `step`). Pure: no I/O, no clock, so every
// rule of client-go's tools/cache/reflector.go that we follow is tested here without a server.
import { ApiError, isResourceExpired, isTooManyRequests } from "../kube/errors.ts";
import { VeryShortWatchError, WatchIdleError, WatchListUnsupportedError, isTooLargeResourceVersion, isWatchErrorRetriable } from "./reflector-errors.ts";

/**
 * Where a full list reads: at the last synced resourceVersion ("0" before the first list, which
 * the watch cache answers), or, once the server refused that version, a consistent read ("").
 */
export type ListFrom = "last-synced" | "consistent";

/** A streaming list: a watch with sendInitialEvents, which goes on as the watch once the store is filled. */
export interface StreamingList {
  readonly phase: "streaming-list";
  readonly from: ListFrom;
  /** See Watching. */
  readonly recentlyExpired: boolean;
}

/** A LIST, in pages unless a watch cache answers it. */
export interface Listing {
  readonly phase: "listing";
  readonly from: ListFrom;
  /**
   * The attempt this LIST takes over from, refused a moment ago: the list is not counted again,
   * and after a refused version it keeps that request's page size, as client-go reuses its pager.
   */
  readonly replaces?: "refused-stream" | "refused-version";
  /** See Watching. */
  readonly recentlyExpired: boolean;
}

/** A watch from the last synced resourceVersion; a streaming list turns into one once the store is filled. */
export interface Watching {
  readonly phase: "watching";
  /**
   * A watch was answered 410 and no watch since delivered an event: the relist did not help,
   * so the next 410 backs off before relisting instead of hammering the server.
   */
  readonly recentlyExpired: boolean;
}

export interface BackingOff {
  readonly phase: "backing-off";
  /** What the reflector tries again once the backoff has passed. */
  readonly then: StreamingList | Listing | Watching;
}

export type ReflectorState = StreamingList | Listing | Watching | BackingOff;

/** What the reflector's list or watch (or its backoff) came to. */
export type Happening =
  /** A LIST, or a streaming list's initial events, filled the store. */
  | { readonly type: "listed" }
  /** The server ended the stream. `delivered`: the watch applied events (a streaming list's initial ones aside). */
  | { readonly type: "closed"; readonly delivered: boolean }
  /** `opened`: it failed once the watch was open (a broken stream, an ERROR event), not opening it; a LIST never opens. */
  | { readonly type: "failed"; readonly error: unknown; readonly opened: boolean; readonly delivered: boolean }
  | { readonly type: "waited" };

/** The next state, and which rule led there: the reflector logs and counts by it. */
export type Step =
  | { readonly next: ReflectorState; readonly reason: "listed" | "closed" | "waited" | "stream-refused" | "version-unavailable" | "expired" }
  /** Reported to onError: the others are the protocol working as meant. */
  | { readonly next: ReflectorState; readonly reason: "failure"; readonly error: unknown };

/** How a reflector starts: with a full list, streamed if `streamLists`. */
export function initialState(streamLists: boolean): StreamingList | Listing {
  return fullList(streamLists, "last-synced", false);
}

/** The one place where the reflector changes state. `streamLists`: full lists are tried as streams first. */
export function nextState(state: ReflectorState, happened: Happening, streamLists: boolean): Step {
  switch (state.phase) {
    case "backing-off":
      if (happened.type !== "waited") return impossible(state, happened);
      return { next: state.then, reason: "waited" };
    case "streaming-list":
      return afterStreamingList(state, happened);
    case "listing":
      return afterListing(state, happened, streamLists);
    case "watching":
      return afterWatching(state, happened, streamLists);
  }
}

function afterStreamingList(state: StreamingList, happened: Happening): Step {
  if (happened.type === "listed") return { next: watching(state.recentlyExpired), reason: "listed" };
  // Ended before the bookmark that closes the initial events: the server does not stream lists.
  if (happened.type === "closed") return { next: listInstead(state), reason: "stream-refused" };
  if (happened.type !== "failed") return impossible(state, happened);
  const { error } = happened;
  if (error instanceof WatchListUnsupportedError || refusesStreamingList(error)) return { next: listInstead(state), reason: "stream-refused" };
  if (state.from === "last-synced" && isVersionUnavailable(error)) return { next: { ...state, from: "consistent" }, reason: "version-unavailable" };
  // A stalled connection is not the server's fault: stream again at once.
  if (error instanceof WatchIdleError) return { next: state, reason: "failure", error };
  return { next: backingOff(state), reason: "failure", error };
}

function afterListing(state: Listing, happened: Happening, streamLists: boolean): Step {
  if (happened.type === "listed") return { next: watching(state.recentlyExpired), reason: "listed" };
  if (happened.type !== "failed") return impossible(state, happened);
  const { error } = happened;
  if (state.from === "last-synced" && isVersionUnavailable(error)) {
    return { next: { phase: "listing", from: "consistent", replaces: "refused-version", recentlyExpired: state.recentlyExpired }, reason: "version-unavailable" };
  }
  // A LIST that stood in for a refused stream was for that list only: the next one streams again.
  return { next: backingOff(fullList(streamLists, state.from, state.recentlyExpired)), reason: "failure", error };
}

function afterWatching(state: Watching, happened: Happening, streamLists: boolean): Step {
  if (happened.type === "closed") return { next: watching(state.recentlyExpired && !happened.delivered), reason: "closed" };
  if (happened.type !== "failed") return impossible(state, happened);
  const { error, opened } = happened;
  const recentlyExpired = state.recentlyExpired && !happened.delivered;
  if (isResourceExpired(error)) {
    const relist = fullList(streamLists, "last-synced", true);
    return { next: recentlyExpired ? backingOff(relist) : relist, reason: "expired" };
  }
  if (error instanceof WatchIdleError) return { next: watching(recentlyExpired), reason: "failure", error };
  const then = canRewatch(error, opened) ? watching(recentlyExpired) : fullList(streamLists, "last-synced", recentlyExpired);
  return { next: backingOff(then), reason: "failure", error };
}

/** A happening the reflector's I/O never reports in this phase: a bug, not a server's answer. */
function impossible(state: ReflectorState, happened: Happening): never {
  throw new Error(`reflector: "${happened.type}" cannot happen while ${state.phase}`);
}

function fullList(streamLists: boolean, from: ListFrom, recentlyExpired: boolean): StreamingList | Listing {
  return streamLists ? { phase: "streaming-list", from, recentlyExpired } : { phase: "listing", from, recentlyExpired };
}

function listInstead(state: StreamingList): Listing {
  return { phase: "listing", from: state.from, replaces: "refused-stream", recentlyExpired: state.recentlyExpired };
}

function watching(recentlyExpired: boolean): Watching {
  return { phase: "watching", recentlyExpired };
}

function backingOff(then: BackingOff["then"]): BackingOff {
  return { phase: "backing-off", then };
}

/** The version asked for is gone (410) or the server has not reached it: only a consistent read gets further. */
function isVersionUnavailable(error: unknown): boolean {
  return isResourceExpired(error) || isTooLargeResourceVersion(error);
}

/**
 * Answers after which client-go does this list by LIST: any API error (the WatchList gate off,
 * forbidden, a server error) but those a streaming list recovers from by itself — 410 and Too
 * large resource version (stream a consistent read), 429 (back off, stream again).
 */
function refusesStreamingList(error: unknown): boolean {
  return error instanceof ApiError && !isVersionUnavailable(error) && !isTooManyRequests(error);
}

/**
 * Whether a failed watch is reopened at the same resourceVersion rather than relisted: the
 * server was unreachable or busy (connection refused, 429), or an open stream broke (our
 * deliberate difference: client-go counts a dropped connection as a normal end, which relists
 * when it comes within a second of the watch's start).
 */
function canRewatch(error: unknown, opened: boolean): boolean {
  if (!opened) return isWatchErrorRetriable(error);
  if (error instanceof ApiError) return isTooManyRequests(error);
  return !(error instanceof VeryShortWatchError);
}
