import { describe, expect, test } from "bun:test";
import { ApiError, TransportError } from "../kube/errors.ts";
import { VeryShortWatchError, WatchIdleError, WatchListUnsupportedError } from "./reflector-errors.ts";
import {
  type BackingOff,
  type Happening,
  type ListFrom,
  type Listing,
  type ReflectorState,
  type StreamingList,
  type Watching,
  initialState,
  nextState,
} from "./reflector-state.ts";

const expired = () => new ApiError(410, "Expired", "too old resource version", "GET", "/fake");
const tooLarge = () =>
  ApiError.fromStatus(
    { code: 504, reason: "Timeout", message: "Too large resource version: 900, current: 120", details: { causes: [{ reason: "ResourceVersionTooLarge" }] } },
    "GET",
    "/fake",
  );
const tooManyRequests = () => new ApiError(429, "TooManyRequests", "slow down", "GET", "/fake");
const internalError = () => new ApiError(500, "InternalError", "etcd hiccup", "GET", "/fake");
const forbidden = () => new ApiError(403, "Forbidden", "watch is forbidden", "GET", "/fake");
const refused = () => new TransportError("GET https://fake: connection refused", "https://fake", "ECONNREFUSED");
const timedOut = () => new TransportError("GET https://fake: request timed out", "https://fake", "TimeoutError");
const broken = () => new TransportError("GET https://fake: connection reset", "https://fake", "ECONNRESET");

/** Failed to open (a LIST, or a watch the server refused). */
const failedToOpen = (error: unknown): Happening => ({ type: "failed", error, opened: false, delivered: false });
/** Failed after the watch was open; `delivered`: it had applied events. */
const failedOpen = (error: unknown, delivered = false): Happening => ({ type: "failed", error, opened: true, delivered });
const listed: Happening = { type: "listed" };
const waited: Happening = { type: "waited" };

const stream = (from: ListFrom = "last-synced", recentlyExpired = false): StreamingList => ({ phase: "streaming-list", from, recentlyExpired });
const list = (from: ListFrom = "last-synced", recentlyExpired = false): Listing => ({ phase: "listing", from, recentlyExpired });
const watching = (recentlyExpired = false): Watching => ({ phase: "watching", recentlyExpired });
const backingOff = (then: BackingOff["then"]): BackingOff => ({ phase: "backing-off", then });

describe("reflector states", () => {
  test("a reflector starts with a full list at the last synced resourceVersion (\"0\" so far): streamed, or by LIST when streaming lists are off", () => {
    expect(initialState(true)).toEqual(stream());
    expect(initialState(false)).toEqual(list());
  });

  test("a full list that filled the store goes on as a watch, keeping whether the last watch expired", () => {
    for (const recentlyExpired of [false, true]) {
      expect(nextState(stream("consistent", recentlyExpired), listed, true)).toEqual({ next: watching(recentlyExpired), reason: "listed" });
      expect(nextState(list("consistent", recentlyExpired), listed, false)).toEqual({ next: watching(recentlyExpired), reason: "listed" });
    }
  });

  describe("a streaming list", () => {
    test("the server refused it (the gate off: an API error, no bookmark in time, or the stream ended before it): that list is done by LIST at once", () => {
      for (const happened of [
        failedToOpen(internalError()),
        failedToOpen(forbidden()),
        failedOpen(internalError()),
        failedOpen(new WatchListUnsupportedError("no initial-events-end bookmark")),
        { type: "closed", delivered: false } as const,
      ]) {
        for (const from of ["last-synced", "consistent"] as const) {
          expect(nextState(stream(from, true), happened, true)).toEqual({
            next: { phase: "listing", from, replaces: "refused-stream", recentlyExpired: true },
            reason: "stream-refused",
          });
        }
      }
    });

    test("410 or Too large resource version at the last synced version: streams a consistent read at once, as no failure", () => {
      for (const error of [expired(), tooLarge()]) {
        for (const happened of [failedToOpen(error), failedOpen(error)]) {
          expect(nextState(stream("last-synced", true), happened, true)).toEqual({ next: stream("consistent", true), reason: "version-unavailable" });
        }
      }
    });

    test("a consistent read refused so is a failure: back off, stream a consistent read again", () => {
      const error = expired();
      expect(nextState(stream("consistent"), failedToOpen(error), true)).toEqual({ next: backingOff(stream("consistent")), reason: "failure", error });
    });

    test("429 or a transport failure: back off and stream again", () => {
      for (const error of [tooManyRequests(), refused(), broken()]) {
        expect(nextState(stream(), failedToOpen(error), true)).toEqual({ next: backingOff(stream()), reason: "failure", error });
      }
    });

    test("an idle stream is a failure, streamed again at once", () => {
      const error = new WatchIdleError("idle");
      expect(nextState(stream(), failedOpen(error), true)).toEqual({ next: stream(), reason: "failure", error });
    });
  });

  describe("a LIST", () => {
    test("410 or Too large resource version at the last synced version: a consistent read at once, the same list (counted once, same page size)", () => {
      for (const error of [expired(), tooLarge()]) {
        expect(nextState(list("last-synced", true), failedToOpen(error), false)).toEqual({
          next: { phase: "listing", from: "consistent", replaces: "refused-version", recentlyExpired: true },
          reason: "version-unavailable",
        });
      }
    });

    test("any other failure backs off, then lists afresh from the same version: streamed again if a refused stream made it a LIST", () => {
      const error = refused();
      const standIn: ReflectorState = { phase: "listing", from: "consistent", replaces: "refused-stream", recentlyExpired: true };
      expect(nextState(standIn, failedToOpen(error), true)).toEqual({ next: backingOff(stream("consistent", true)), reason: "failure", error });
      expect(nextState(list("last-synced"), failedToOpen(error), false)).toEqual({ next: backingOff(list("last-synced")), reason: "failure", error });
    });

    test("a consistent read refused with 410 is a failure too, still read consistently after the backoff", () => {
      const error = expired();
      const retry: ReflectorState = { phase: "listing", from: "consistent", replaces: "refused-version", recentlyExpired: false };
      expect(nextState(retry, failedToOpen(error), false)).toEqual({ next: backingOff(list("consistent")), reason: "failure", error });
    });
  });

  describe("a watch", () => {
    test("the server ended it: watch again at once; events delivered end the wariness of a recent 410", () => {
      expect(nextState(watching(), { type: "closed", delivered: false }, true)).toEqual({ next: watching(), reason: "closed" });
      expect(nextState(watching(true), { type: "closed", delivered: false }, true)).toEqual({ next: watching(true), reason: "closed" });
      expect(nextState(watching(true), { type: "closed", delivered: true }, true)).toEqual({ next: watching(false), reason: "closed" });
    });

    test("410, opening it or in its stream: relist at once from the last synced version (the watch cache), as no failure", () => {
      for (const happened of [failedToOpen(expired()), failedOpen(expired())]) {
        expect(nextState(watching(), happened, true)).toEqual({ next: stream("last-synced", true), reason: "expired" });
        expect(nextState(watching(), happened, false)).toEqual({ next: list("last-synced", true), reason: "expired" });
      }
    });

    test("410 again before any event since the last one: back off before relisting", () => {
      expect(nextState(watching(true), failedToOpen(expired()), false)).toEqual({ next: backingOff(list("last-synced", true)), reason: "expired" });
      expect(nextState(watching(true), failedOpen(expired(), true), false)).toEqual({ next: list("last-synced", true), reason: "expired" });
    });

    test("429 or connection refused opening it: back off and watch again from the same version", () => {
      for (const error of [tooManyRequests(), refused()]) {
        expect(nextState(watching(true), failedToOpen(error), true)).toEqual({ next: backingOff(watching(true)), reason: "failure", error });
      }
    });

    test("any other failure to open it (500, timeout, Too large resource version): back off and relist", () => {
      for (const error of [internalError(), timedOut(), tooLarge()]) {
        expect(nextState(watching(), failedToOpen(error), true)).toEqual({ next: backingOff(stream()), reason: "failure", error });
      }
    });

    test("a broken stream or a 429 ERROR event: back off and watch again from the same version", () => {
      for (const error of [broken(), tooManyRequests()]) {
        expect(nextState(watching(), failedOpen(error), true)).toEqual({ next: backingOff(watching()), reason: "failure", error });
      }
    });

    test("an other ERROR event (500, Too large resource version) or a very short watch: back off and relist", () => {
      for (const error of [internalError(), tooLarge(), new VeryShortWatchError("closed at once")]) {
        expect(nextState(watching(true), failedOpen(error), false)).toEqual({ next: backingOff(list("last-synced", true)), reason: "failure", error });
      }
    });

    test("an idle watch is a failure, watched again at once from the same version", () => {
      const error = new WatchIdleError("idle");
      expect(nextState(watching(true), failedOpen(error, true), true)).toEqual({ next: watching(false), reason: "failure", error });
    });
  });

  test("a backoff, once waited, gives way to what it postponed", () => {
    for (const then of [stream("consistent"), list(), watching(true)]) {
      expect(nextState(backingOff(then), waited, true)).toEqual({ next: then, reason: "waited" });
    }
  });

  test("what the reflector never reports in a phase is a bug, not a rule", () => {
    expect(() => nextState(watching(), listed, true)).toThrow('"listed" cannot happen while watching');
    expect(() => nextState(list(), { type: "closed", delivered: false }, false)).toThrow("cannot happen while listing");
    expect(() => nextState(stream(), waited, true)).toThrow("cannot happen while streaming-list");
    expect(() => nextState(backingOff(watching()), listed, true)).toThrow("cannot happen while backing-off");
  });
});
