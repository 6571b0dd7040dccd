// The reflector mirrors one collection of the API server into a store: a full list once, then
// WATCH from the list's resourceVersion, re-watching whenever a watch ends, and listing again
// when the watch can't go on from where it is (410, or a failure that retrying the same watch
// won't cure). A full list is a streaming list (a watch that starts with the current objects)
// unless the server refuses one, then a LIST. client-go's tools/cache/reflector.go, including
// which resourceVersion and page size each list uses. This file does the requests; what follows
// what is decided in reflector-state.ts.
import { type Clock, type Timer, realClock } from "../clock/clock.ts";
import { ExponentialBackoff } from "../flowcontrol/backoff.ts";
import { ApiError, isTooManyRequests } from "../kube/errors.ts";
import { type ListOptions, type ListerWatcher, type WatchOptions, initialEventsEndAnnotation } from "../kube/list-watch.ts";
import type { KubeObject, WatchEvent } from "../kube/objects.ts";
import { batchesOf } from "../kube/watch-stream.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import { childAbortController, untilAborted } from "./abortable.ts";
import { GarbageHint } from "./garbage-hint.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import { listAllPages } from "./list-pager.ts";
import { VeryShortWatchError, WatchIdleError, WatchListUnsupportedError } from "./reflector-errors.ts";
import { type Happening, type Listing, type ReflectorState, type StreamingList, type Watching, initialState, nextState } from "./reflector-state.ts";
import type { ReflectorStore } from "./store.ts";

export { initialEventsEndAnnotation } from "../kube/list-watch.ts";

export interface ReflectorOptions<T extends KubeObject = KubeObject> {
  /** Names the reflector in logs and errors, e.g. "pods.v1". */
  name?: string;
  clock?: Clock;
  /** A number in [0, 1): watch timeouts and backoff jitter. */
  random?: () => number;
  logger?: Logger;
  /**
   * Objects per page (client-go's pager default: 500); 0 never pages. A list at a known
   * resourceVersion asks for no limit, so that the watch cache can answer it.
   */
  pageSize?: number;
  /** A watch that delivers nothing, not even a bookmark, for this long is abandoned and reopened. Default 330 s. */
  watchIdleTimeoutMs?: number;
  /**
   * Fill the store with a streaming list (a watch with sendInitialEvents) rather than LIST, as
   * client-go does by default since 1.35 (WatchListClient). A server that refuses one gets a
   * LIST instead, and the next list tries streaming again. Default true.
   */
  useWatchList?: boolean;
  /** How long a streaming list may take to deliver its initial events before that list is done by LIST instead. Default 60 s. */
  watchListTimeoutMs?: number;
  /** Waits between failed attempts. Default: 800 ms doubling to 30 s, jitter 1.0, reset after 2 min. */
  backoff?: ExponentialBackoff;
  /** Told about every failed list or watch (client-go's WatchErrorHandler); the reflector retries regardless. */
  onError?: (err: unknown) => void;
  /**
   * Applied to every object as it arrives, before the store sees it (a watch event, each object
   * of a list), so what it drops is garbage at once, not after the whole list is in.
   */
  transform?: (obj: T) => T;
  /**
   * The store's own copy of `obj` when it already holds that very version (same key, same
   * resourceVersion). A relist keeps that copy instead of a second one: memory stays near the
   * steady state while the store is replaced.
   */
  cachedVersionOf?: (obj: T) => T | undefined;
}

/** What an informer's reflector has done since it started. */
export interface ReflectorCounters {
  /** Full lists: streaming lists and LIST operations (each may take several pages). */
  lists: number;
  /** WATCH requests, streaming lists included. */
  watches: number;
  /** Lists forced by an expired resourceVersion (410). */
  relists: number;
  /** Failures reported to onError. */
  errors: number;
  /** Watches abandoned for being idle too long. */
  idleWatchAborts: number;
}

/** Counters of a reflector that has done nothing yet (or has not been made). */
export function noReflectorCounters(): ReflectorCounters {
  return { lists: 0, watches: 0, relists: 0, errors: 0, idleWatchAborts: 0 };
}

/** The API server closes a watch after a random time in [minWatchTimeoutSeconds, 2 × that). */
const minWatchTimeoutSeconds = 300;
/** A watch that ends sooner than this with no events counts as a failure. */
const veryShortWatchMs = 1000;

export class Reflector<T extends KubeObject = KubeObject> {
  private readonly name: string;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly pageSize: number;
  private readonly watchIdleTimeoutMs: number;
  private readonly watchListTimeoutMs: number;
  private readonly backoff: ExponentialBackoff;
  private readonly onError: ((err: unknown) => void) | undefined;
  private readonly transform: (obj: T) => T;
  private readonly cachedVersionOf: (obj: T) => T | undefined;
  private readonly garbage = new GarbageHint();
  private readonly stats: ReflectorCounters = noReflectorCounters();
  private readonly streamLists: boolean;
  private state: ReflectorState;
  private lastFailure: unknown;
  /** Where the collection was last seen, whatever the phase: lists and watches go on from it. */
  private resourceVersion = "";
  private synced = false;
  /** Objects in the last full list: about what the store holds while the next one comes in. */
  private lastListSize = 0;
  /** The first list, at "0", came back in pages: no watch cache serves this resource, so lists keep paging. A fact about the server, not a phase. */
  private paginatedResult = false;

  constructor(
    private readonly listerWatcher: ListerWatcher<T>,
    private readonly store: ReflectorStore<T>,
    options: ReflectorOptions<T> = {},
  ) {
    this.name = options.name ?? "reflector";
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.logger = (options.logger ?? silentLogger).child({ reflector: this.name });
    this.pageSize = options.pageSize ?? 500;
    this.watchIdleTimeoutMs = options.watchIdleTimeoutMs ?? 330_000;
    this.watchListTimeoutMs = options.watchListTimeoutMs ?? 60_000;
    this.backoff = options.backoff ?? new ExponentialBackoff({ clock: this.clock, random: this.random });
    this.onError = options.onError;
    this.streamLists = options.useWatchList ?? true;
    this.state = initialState(this.streamLists);
    this.transform = options.transform ?? ((obj) => obj);
    this.cachedVersionOf = options.cachedVersionOf ?? (() => undefined);
  }

  /** The resourceVersion of the last list, event or bookmark applied. */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** True once a first full list reached the store. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The last list or watch failure since the store was last filled; undefined when there was none. */
  get lastError(): unknown {
    return this.lastFailure;
  }

  get counters(): Readonly<ReflectorCounters> {
    return { ...this.stats };
  }

  /** Lists and watches until `signal` aborts; never gives up on its own. */
  async run(signal: AbortSignal): Promise<void> {
    this.logger.debug("starting reflector");
    while (!signal.aborted) {
      const state = this.state;
      let happened: Happening;
      if (state.phase === "backing-off") {
        await this.wait(signal);
        happened = { type: "waited" };
      } else if (state.phase === "listing") happened = await this.list(state, signal);
      else happened = await this.watch(state, signal);
      if (signal.aborted) break;
      this.follow(happened);
    }
    this.logger.debug("stopped reflector");
  }

  /** Moves to the state that follows what happened; logs and counts by the rule that applied. */
  private follow(happened: Happening): void {
    const before = this.state;
    const step = nextState(before, happened, this.streamLists);
    this.state = step.next;
    const err = happened.type === "failed" ? happened.error : undefined;
    const resourceVersion = this.resourceVersion;
    switch (step.reason) {
      case "failure":
        return this.report(step.error, before);
      case "expired":
        this.stats.relists++;
        return this.logger.info({ resourceVersion }, "resourceVersion expired; relisting");
      case "stream-refused":
        return this.logger.info({ err }, "streaming list unavailable; listing with LIST this time");
      case "version-unavailable":
        return this.logger.info({ resourceVersion, err }, "list at resourceVersion refused; listing with a consistent read");
      case "closed":
        return this.logger.debug({ resourceVersion }, "watch ended; re-watching");
      case "listed":
      case "waited":
        return;
    }
  }

  /**
   * Pages as client-go's reflector does: a limit on a list at a known version would send it
   * past the watch cache to etcd, so such lists are not paged, unless the first list showed
   * that no cache serves this resource. At "0" the cache ignores the limit; at "" etcd pages.
   */
  private listPageSize(resourceVersion: string): number {
    if (this.paginatedResult || resourceVersion === "" || resourceVersion === "0") return this.pageSize;
    return 0;
  }

  /**
   * One LIST, page by page. The last synced resourceVersion is "0" (anything the watch cache
   * has) before the first list, later the cache again, never older than what was seen.
   */
  private async list(state: Listing, signal: AbortSignal): Promise<Happening> {
    const lastSynced = this.resourceVersion === "" ? "0" : this.resourceVersion;
    const resourceVersion = state.from === "consistent" ? "" : lastSynced;
    const pageSize = this.listPageSize(state.replaces === "refused-version" ? lastSynced : resourceVersion);
    if (state.replaces === undefined) this.stats.lists++;
    try {
      const result = await listAllPages(this.listerWatcher, listOptions(resourceVersion, pageSize), signal, this.listed);
      if (resourceVersion === "0" && result.pages > 1) this.paginatedResult = true;
      this.logger.debug({ items: result.items.length, pages: result.pages, resourceVersion: result.resourceVersion }, "listed");
      await this.replaceStore(result.items, result.resourceVersion);
      return { type: "listed" };
    } catch (error) {
      return { type: "failed", error, opened: false, delivered: false };
    }
  }

  /**
   * One WATCH, consumed until the server ends it. A streaming list replaces the store once its
   * initial events are in, and the same connection goes on as the watch.
   */
  private async watch(state: StreamingList | Watching, signal: AbortSignal): Promise<Happening> {
    const streaming = state.phase === "streaming-list";
    const connection = childAbortController(signal);
    let abandoned: Error | undefined;
    const abandon = (reason: Error) => {
      abandoned ??= reason;
      connection.abort(reason);
    };
    // Each event only notes its time; the one timer looks at it when it fires (a timer per event costs a lot in a big list).
    let lastEventAt = this.clock.monotonic();
    let idleTimer: Timer | undefined;
    const armIdleTimer = (delayMs: number) => {
      idleTimer = this.clock.setTimer(delayMs, () => {
        const idleMs = this.clock.monotonic() - lastEventAt;
        if (idleMs < this.watchIdleTimeoutMs) return armIdleTimer(this.watchIdleTimeoutMs - idleMs);
        abandon(new WatchIdleError(`${this.name}: no watch event for ${this.watchIdleTimeoutMs} ms`));
      });
    };
    armIdleTimer(this.watchIdleTimeoutMs);
    const listTimer = streaming
      ? this.clock.setTimer(this.watchListTimeoutMs, () =>
          abandon(new WatchListUnsupportedError(`${this.name}: streaming list sent no initial-events-end bookmark within ${this.watchListTimeoutMs} ms`)),
        )
      : undefined;
    const startedAt = lastEventAt;
    let events = 0;
    let opened = false;
    // Events applied as a watch's, a streaming list's initial ones aside.
    let delivered = false;
    let listing = streaming;
    try {
      this.stats.watches++;
      if (streaming) this.stats.lists++;
      const stream = await this.listerWatcher.watch(this.watchOptions(state), connection.signal);
      opened = true;
      const batches = untilAborted(batchesOf(stream), connection.signal)[Symbol.asyncIterator]();
      const next = async () => {
        const result = await batches.next();
        if (result.done) return undefined;
        events += result.value.length;
        lastEventAt = this.clock.monotonic();
        return result.value;
      };
      // The timer is for the initial events only: once they are all in, storing them may take long.
      let afterList: readonly WatchEvent<T>[] | undefined = [];
      if (listing) {
        afterList = await this.streamInitialEvents(next, () => listTimer?.cancel());
        if (afterList !== undefined) {
          listing = false;
          this.follow({ type: "listed" });
        }
      }
      for (let batch = afterList; batch !== undefined; batch = await next()) {
        for (const event of batch) {
          this.apply(event);
          delivered = true;
        }
      }
    } catch (error) {
      return { type: "failed", error: abandoned ?? error, opened, delivered };
    } finally {
      idleTimer?.cancel();
      listTimer?.cancel();
      connection.abort();
    }
    if (abandoned) return { type: "failed", error: abandoned, opened, delivered };
    if (!listing && events === 0 && this.clock.monotonic() - startedAt < veryShortWatchMs) {
      const error = new VeryShortWatchError(`${this.name}: watch closed within ${veryShortWatchMs} ms without any event`);
      return { type: "failed", error, opened, delivered };
    }
    return { type: "closed", delivered };
  }

  /**
   * Gathers a streaming list's objects until the bookmark that ends them, and replaces the store
   * with them; returns the events that came after the bookmark in its batch, or undefined if the
   * stream ended first. A function of its own so that nothing of the list outlives it: the watch
   * that goes on afterwards keeps its frame for minutes.
   */
  private async streamInitialEvents(
    next: () => Promise<readonly WatchEvent<T>[] | undefined>,
    ended: () => void,
  ): Promise<readonly WatchEvent<T>[] | undefined> {
    const initial = new Map<string, T>();
    for (let batch = await next(); batch !== undefined; batch = await next()) {
      let seen = 0;
      for (const event of batch) {
        seen++;
        const listResourceVersion = this.collectInitial(event, initial);
        if (listResourceVersion === undefined) continue;
        ended();
        // The garbage of the stream's last objects goes before the store compares the list with the cache.
        if (this.synced) this.garbage.relistStepDone(initial.size);
        // Keyed as they came in: the store need not key 50,000 objects again.
        await this.replaceStore([...initial.values()], listResourceVersion, [...initial.keys()]);
        return batch.slice(seen);
      }
    }
    return undefined;
  }

  private watchOptions(state: StreamingList | Watching): WatchOptions {
    const timeoutSeconds = Math.floor(minWatchTimeoutSeconds * (1 + this.random()));
    if (state.phase === "watching") return { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds };
    // A streaming list starts from what was seen ("not older than"), or from a consistent read.
    const resourceVersion = state.from === "consistent" ? "" : this.resourceVersion;
    return {
      sendInitialEvents: true,
      resourceVersionMatch: "NotOlderThan",
      ...(resourceVersion ? { resourceVersion } : {}),
      allowWatchBookmarks: true,
      timeoutSeconds,
    };
  }

  /** Applies a steady-state watch event to the store. */
  private apply(event: WatchEvent<T>): void {
    if (event.type === "ERROR") throw ApiError.fromStatus(event.object, "WATCH", this.name);
    const obj = event.object;
    if (event.type === "BOOKMARK") {
      const resourceVersion = obj.metadata?.resourceVersion;
      // The store hears of it too, in order with the events: its resourceVersion moves on with the collection's.
      if (resourceVersion) this.store.bookmark(resourceVersion);
      return this.advance(resourceVersion);
    }
    if (!obj?.metadata?.name) {
      this.logger.warn({ type: event.type }, "skipping watch event without an object name");
      return;
    }
    if (event.type === "ADDED") this.store.add(this.transform(obj));
    else if (event.type === "MODIFIED") this.store.update(this.transform(obj));
    else this.store.delete(this.transform(obj));
    this.advance(obj.metadata.resourceVersion);
  }

  /** Gathers a streaming list's initial events; returns the list's resourceVersion once the bookmark ending them arrives. */
  private collectInitial(event: WatchEvent<T>, initial: Map<string, T>): string | undefined {
    if (event.type === "ERROR") throw ApiError.fromStatus(event.object, "WATCH", this.name);
    const obj = event.object;
    if (event.type === "BOOKMARK") {
      return obj.metadata?.annotations?.[initialEventsEndAnnotation] === "true" ? (obj.metadata.resourceVersion ?? "") : undefined;
    }
    if (!obj?.metadata?.name) return undefined;
    if (event.type === "DELETED") initial.delete(metaNamespaceKeyFunc(obj));
    else {
      // Keyed as kept, transform applied, as the store would key it.
      const kept = this.listed(obj);
      initial.set(metaNamespaceKeyFunc(kept), kept);
    }
    return undefined;
  }

  /** What is kept of a listed object: the store's copy of this version if it has one, else the object transformed. */
  private readonly listed = (obj: T): T => {
    if (this.synced) this.garbage.objectRelisted(this.lastListSize);
    else this.garbage.objectDecoded();
    return this.cachedVersionOf(obj) ?? this.transform(obj);
  };

  private async replaceStore(items: T[], resourceVersion: string, keys?: readonly string[]): Promise<void> {
    await this.store.replace(items, resourceVersion, keys);
    this.lastListSize = items.length;
    this.lastFailure = undefined;
    this.resourceVersion = resourceVersion;
    this.synced = true;
  }

  private advance(resourceVersion: string | undefined): void {
    if (resourceVersion) this.resourceVersion = resourceVersion;
  }

  private wait(signal: AbortSignal): Promise<void> {
    return this.backoff.wait(signal).catch(() => undefined);
  }

  private report(err: unknown, during: ReflectorState): void {
    this.stats.errors++;
    this.lastFailure = err;
    if (err instanceof WatchIdleError) this.stats.idleWatchAborts++;
    const level = isTooManyRequests(err) ? "info" : "warn";
    this.logger[level]({ err, resourceVersion: this.resourceVersion, phase: during.phase }, "list/watch failed; retrying");
    this.onError?.(err);
  }
}

function listOptions(resourceVersion: string, pageSize: number): ListOptions {
  return { ...(resourceVersion ? { resourceVersion } : {}), ...(pageSize > 0 ? { limit: pageSize } : {}) };
}
