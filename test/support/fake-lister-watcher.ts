// An in-memory API server collection for informer tests: it keeps objects and their
// resourceVersions, pages lists, replays history to watches, can do streaming lists, and can be
// told to misbehave (410s, ERROR events, broken or ended streams). It records every request.
import { ApiError, TransportError } from "../../pkg/kube/errors.ts";
import type { ListOptions, ListerWatcher, WatchOptions } from "../../pkg/kube/list-watch.ts";
import type { KubeObject, ObjectList, Status, WatchEvent } from "../../pkg/kube/objects.ts";
import { initialEventsEndAnnotation } from "../../pkg/informer/reflector.ts";
import type { HashRange } from "../../pkg/sharding/hash-range.ts";
import { rangesHoldNamespace } from "../../pkg/sharding/namespace-hash.ts";

/** How the fake treats shardSelector: like a server with the ShardedListAndWatch gate on, or one without it. */
export type ShardSelectorSupport = "applied" | "ignored";

/** The ranges of a `shardRange(object.metadata.namespace, '0x…', '0x…') || …` selector. */
export function parseNamespaceShardSelector(selector: string): HashRange[] {
  const ranges = [...selector.matchAll(/shardRange\(object\.metadata\.namespace, '(0x[0-9a-f]+)', '(0x[0-9a-f]+)'\)/g)].map((m) => ({ start: BigInt(m[1] ?? ""), end: BigInt(m[2] ?? "") }));
  if (ranges.length === 0) throw new ApiError(400, "BadRequest", `invalid shardSelector ${selector}`, "GET", "/fake");
  return ranges;
}

/** How the fake answers a watch with sendInitialEvents: like a 1.32+ server, a server with the gate off, or an old server. */
export type WatchListSupport = "supported" | "rejected" | "ignored";

export class FakeListerWatcher<T extends KubeObject = KubeObject> implements ListerWatcher<T> {
  /** Options of every list call, in order. */
  readonly listCalls: ListOptions[] = [];
  /** Options of every watch call, in order. */
  readonly watchCalls: WatchOptions[] = [];
  watchListSupport: WatchListSupport = "supported";
  /** Default: ignored, as by a server before 1.36. */
  shardSelectorSupport: ShardSelectorSupport = "ignored";
  /** Like an API server with its watch cache on: a list at resourceVersion "0" ignores limit. Off: every list pages. */
  watchCache = true;
  private readonly objects = new Map<string, T>();
  private resourceVersion = 100;
  private readonly history: { resourceVersion: number; event: WatchEvent<T> }[] = [];
  /** Watches from an older resourceVersion get 410 Gone. */
  private oldestWatchable = 0;
  private continueTokensExpired = false;
  private readonly listFailures: Error[] = [];
  private readonly watchFailures: Error[] = [];
  private readonly streams = new Set<FakeWatchStream<T>>();

  constructor(initial: T[] = []) {
    for (const obj of initial) this.create(obj);
  }

  get currentResourceVersion(): string {
    return String(this.resourceVersion);
  }

  /** Watches currently open. */
  get openWatches(): number {
    return this.streams.size;
  }

  create(obj: T): T {
    return this.write("ADDED", obj);
  }

  update(obj: T): T {
    return this.write("MODIFIED", obj);
  }

  delete(key: string): void {
    const obj = this.objects.get(key);
    if (!obj) throw new Error(`no object ${key}`);
    this.objects.delete(key);
    const deleted = withResourceVersion(obj, ++this.resourceVersion);
    this.record({ type: "DELETED", object: deleted });
  }

  /** Deletes without telling open watches (as if the event was lost while disconnected). */
  deleteSilently(key: string): void {
    this.objects.delete(key);
    this.resourceVersion++;
  }

  /** Writes no watch ever hears of (made and undone while none listened) still move the resourceVersion on. */
  skipResourceVersions(count: number): void {
    this.resourceVersion += count;
  }

  /** Forgets history: watches from any resourceVersion before now get 410. */
  compact(): void {
    this.oldestWatchable = this.resourceVersion;
  }

  /** Continue tokens handed out so far fail with 410. */
  expireContinueTokens(): void {
    this.continueTokensExpired = true;
  }

  failNextList(err: Error): void {
    this.listFailures.push(err);
  }

  failNextWatch(err: Error): void {
    this.watchFailures.push(err);
  }

  /** Sends an in-stream ERROR event to every open watch. */
  sendError(status: Status): void {
    for (const stream of this.streams) stream.push({ type: "ERROR", object: { kind: "Status", status: "Failure", ...status } });
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch. */
  sendBookmark(): void {
    for (const stream of this.streams) stream.push(bookmark(this.resourceVersion));
  }

  /** Sends an in-stream ERROR event to the open watches whose request matches `which`. */
  sendErrorWhere(which: (options: WatchOptions) => boolean, status: Status): void {
    for (const stream of this.streams) if (which(stream.options)) stream.push({ type: "ERROR", object: { kind: "Status", status: "Failure", ...status } });
  }

  /** Makes every open watch's iterator throw, like a dropped connection. */
  breakStreams(err: Error = new TransportError("connection reset", "https://fake", "ECONNRESET")): void {
    for (const stream of this.streams) stream.fail(err);
  }

  /** Ends every open watch normally, like the server's timeoutSeconds expiring. */
  endStreams(): void {
    for (const stream of this.streams) stream.end();
  }

  async list(options: ListOptions, _signal?: AbortSignal): Promise<ObjectList<T>> {
    this.listCalls.push({ ...options });
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    let offset = 0;
    if (options.continue !== undefined) {
      if (this.continueTokensExpired) throw expired("continue token expired");
      offset = Number(options.continue);
    }
    const shard = this.shardFilter(options.shardSelector);
    const all = [...this.objects.keys()].sort().map((key) => this.objects.get(key) as T).filter(shard.matches);
    const limit = (this.watchCache && options.resourceVersion === "0") || !options.limit ? all.length : options.limit;
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? String(offset + limit) : undefined;
    return {
      metadata: {
        resourceVersion: this.currentResourceVersion,
        ...(next ? { continue: next } : {}),
        ...(shard.applied ? { shardInfo: { selector: options.shardSelector } } : {}),
      },
      items: structuredClone(page),
    };
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>> {
    this.watchCalls.push({ ...options });
    const failure = this.watchFailures.shift();
    if (failure) throw failure;
    if (options.sendInitialEvents && this.watchListSupport === "rejected") {
      throw new ApiError(422, "Invalid", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled", "GET", "/fake");
    }
    const from = options.resourceVersion ? Number(options.resourceVersion) : this.resourceVersion;
    if (from < this.oldestWatchable) throw expired(`too old resource version: ${from} (${this.oldestWatchable})`);
    const stream = new FakeWatchStream<T>(signal, () => this.streams.delete(stream), { ...options }, this.shardFilter(options.shardSelector).matches);
    this.streams.add(stream);
    if (options.sendInitialEvents) {
      for (const obj of this.objects.values()) stream.push({ type: "ADDED", object: structuredClone(obj) });
      if (this.watchListSupport === "supported") stream.push(bookmark(this.resourceVersion, { [initialEventsEndAnnotation]: "true" }));
    } else {
      for (const entry of this.history) if (entry.resourceVersion > from) stream.push(structuredClone(entry.event));
    }
    return stream;
  }

  /** Which objects a request with `selector` gets, and whether the list says it applied it. */
  private shardFilter(selector: string | undefined): { matches: (obj: KubeObject) => boolean; applied: boolean } {
    if (!selector || this.shardSelectorSupport === "ignored") return { matches: () => true, applied: false };
    const ranges = parseNamespaceShardSelector(selector);
    return { matches: (obj) => rangesHoldNamespace(ranges, obj.metadata?.namespace ?? ""), applied: true };
  }

  private write(type: "ADDED" | "MODIFIED", obj: T): T {
    const stored = withResourceVersion(obj, ++this.resourceVersion);
    this.objects.set(keyOf(stored), stored);
    this.record({ type, object: stored });
    return structuredClone(stored);
  }

  private record(event: WatchEvent<T>): void {
    this.history.push({ resourceVersion: this.resourceVersion, event });
    for (const stream of this.streams) stream.push(structuredClone(event));
  }
}

/** A watch response: events pushed by the fake, consumed by one iterator. */
class FakeWatchStream<T extends KubeObject> implements AsyncIterable<WatchEvent<T>> {
  private readonly queue: ({ event: WatchEvent<T> } | { end: true } | { error: Error })[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly signal: AbortSignal,
    private readonly onClose: () => void,
    /** What the watch was opened with. */
    readonly options: WatchOptions = {},
    /** Objects this watch is told about (its shardSelector, where applied); bookmarks and errors always pass. */
    private readonly matches: (obj: KubeObject) => boolean = () => true,
  ) {
    signal.addEventListener("abort", () => this.end(), { once: true });
  }

  push(event: WatchEvent<T>): void {
    if ((event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED") && !this.matches(event.object)) return;
    this.enqueue({ event });
  }

  end(): void {
    this.enqueue({ end: true });
    this.close();
  }

  fail(error: Error): void {
    this.enqueue({ error });
    this.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    try {
      for (;;) {
        const item = this.queue.shift();
        if (!item) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if ("error" in item) throw item.error;
        if ("end" in item || this.signal.aborted) return;
        yield item.event;
      }
    } finally {
      this.close();
    }
  }

  private enqueue(item: { event: WatchEvent<T> } | { end: true } | { error: Error }): void {
    if (this.closed) return;
    this.queue.push(item);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
  }
}

function keyOf(obj: KubeObject): string {
  const { namespace, name } = obj.metadata ?? {};
  return namespace ? `${namespace}/${name}` : `${name}`;
}

function withResourceVersion<T extends KubeObject>(obj: T, resourceVersion: number): T {
  return structuredClone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(resourceVersion) } });
}

function bookmark<T extends KubeObject>(resourceVersion: number, annotations?: Record<string, string>): WatchEvent<T> {
  return { type: "BOOKMARK", object: { metadata: { resourceVersion: String(resourceVersion), ...(annotations ? { annotations } : {}) } } as T };
}

function expired(message: string): ApiError {
  return new ApiError(410, "Expired", message, "GET", "/fake");
}
