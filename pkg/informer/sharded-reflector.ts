// The reflectors of a sharded informer: one per "segment", a set of namespace-hash ranges listed
// and watched together, all feeding the informer's one queue. When the share grows, a segment of
// just the added ranges lists and watches them beside the others (the API server filtering for
// it), so nothing already cached is listed again; when it shrinks, each segment narrows at once
// (what it delivers outside its ranges is dropped as it is applied, and its next watch asks for the
// narrower ranges) and a queued ShareNarrowed drops the lost namespaces from the cache, without a
// list. The informer applies a segment's list to that segment's ranges only (shared-informer.ts).
import type { ListOptions, ListerWatcher, WatchOptions } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import { compareResourceVersions } from "../kube/resource-version.ts";
import type { Logger } from "../log/logger.ts";
import { type HashRange, describeRanges, intersectRanges, normalizeRanges, shardSelector, subtractRanges } from "../sharding/hash-range.ts";
import { rangesHoldNamespace } from "../sharding/namespace-hash.ts";
import type { SegmentId } from "./deltas.ts";
import type { ShardPlan, ShardStatus } from "./namespace-share.ts";
import type { RealFifo } from "./real-fifo.ts";
import { noReflectorCounters, type Reflector, type ReflectorCounters } from "./reflector.ts";
import type { ReflectorStore } from "./store.ts";

/**
 * At most this many segments (watches) at once where the API server filters: one more would
 * relist the whole share in one segment instead, so that a share that changed many times does
 * not hold a watch per change. Where the process filters, every segment would list and watch the
 * whole collection, so there is one only: a growth relists it (the cached objects that did not
 * change are kept as they are, and their handlers hear nothing new).
 */
const maxSegmentsWhenServerFilters = 4;

/** Makes a reflector over `listerWatcher` feeding `store`, with the informer's settings. */
export type ReflectorMaker<T extends KubeObject> = (listerWatcher: ListerWatcher<T>, store: ReflectorStore<T>, name: string) => Reflector<T>;

interface Segment<T extends KubeObject> {
  readonly id: SegmentId;
  /** What it covers now: the ranges it started with, narrowed whenever the share lost some. Disjoint from every other segment's. */
  ranges: HashRange[];
  /** The part of `ranges` whose objects are in the cache: all once its first list is applied; before, what the segments it took over from had. */
  syncedRanges: HashRange[];
  /** Its first list was applied to the cache. */
  listed: boolean;
  /** Of the last change from it applied to the cache; before its first list, what the segments it took over from had reached ("" for a new one). */
  resourceVersion: string;
  readonly reflector: Reflector<T>;
  readonly stop: AbortController;
}

export class ShardedReflector<T extends KubeObject = KubeObject> {
  private readonly segments = new Map<SegmentId, Segment<T>>();
  /** Reflector runs not finished yet, of ended segments too: the informer stops once all have. */
  private readonly runs = new Set<Promise<void>>();
  private nextSegment = 0;
  private signal: AbortSignal | undefined;
  /** Counters of segments that ended, so that the informer's add up over its life. */
  private readonly endedCounters: ReflectorCounters = noReflectorCounters();

  constructor(
    private readonly listerWatcher: ListerWatcher<T>,
    private readonly queue: RealFifo<T>,
    private readonly plan: ShardPlan,
    private readonly makeReflector: ReflectorMaker<T>,
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** Lists and watches the share until `signal` aborts, following its changes. */
  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    const unsubscribe = this.plan.share.onChange(() => this.shareChanged());
    try {
      const ranges = normalizeRanges(this.plan.share.ranges());
      // A process that holds nothing yet has its (empty) cache filled all the same, so that waiting for sync ends.
      if (ranges.length === 0) await this.queue.replace([], "");
      else this.startSegment(ranges, [], "");
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
    } finally {
      unsubscribe();
      await Promise.all([...this.runs]);
    }
  }

  /** True while segment `id` runs: changes it delivered after it ended are dropped. */
  has(id: SegmentId): boolean {
    return this.segments.has(id);
  }

  /** True when `namespace` is in what segment `id` still covers: a change it delivered otherwise is dropped. */
  covers(id: SegmentId, namespace: string): boolean {
    const segment = this.segments.get(id);
    return segment !== undefined && rangesHoldNamespace(segment.ranges, namespace);
  }

  /** Whether a namespace is in what the segments cover now: cached objects elsewhere leave the cache on ShareNarrowed. */
  heldNamespaces(): (namespace: string) => boolean {
    const covered = this.coveredRanges();
    return (namespace) => rangesHoldNamespace(covered, namespace);
  }

  /** Notes that a change from segment `id` reached the cache; `listed`: it was the segment's list. */
  applied(id: SegmentId, resourceVersion: string, listed: boolean): void {
    const segment = this.segments.get(id);
    if (!segment) return;
    if (resourceVersion) segment.resourceVersion = resourceVersion;
    if (!listed) return;
    segment.listed = true;
    segment.syncedRanges = segment.ranges;
  }

  /** True when segment `id` has not had a list applied yet: its list is its ranges' initial one. */
  isListing(id: SegmentId): boolean {
    return this.segments.get(id)?.listed === false;
  }

  /**
   * The cache's resourceVersion with several segments: the oldest of theirs, since a reader may
   * only trust that every change up to it is in, whichever namespace it reads (a controller that
   * compares it with its own write's, as the ReplicaSet controller does, waits a little longer
   * rather than act on a cache that has not seen the write). New segments still on their first
   * list do not count: their namespaces are not synced (see hasSyncedRanges), so no one acts on
   * them. Versions that cannot be ordered (not integers) leave the first segment's. "" when no
   * segment has a version yet.
   */
  storeResourceVersion(): string {
    return oldestOf([...this.segments.values()].map(({ resourceVersion }) => resourceVersion));
  }

  /** The version of the listed segment that holds `namespace`; undefined when none does. */
  resourceVersionIn(namespace: string): string | undefined {
    for (const segment of this.segments.values()) {
      if (segment.listed && rangesHoldNamespace(segment.ranges, namespace)) return segment.resourceVersion || undefined;
    }
    return undefined;
  }

  /** True when every part of `ranges` is cached: in the share, and listed by the segment that covers it. */
  hasSyncedRanges(ranges: readonly HashRange[]): boolean {
    return subtractRanges(normalizeRanges(ranges), this.syncedRanges()).length === 0;
  }

  status(): ShardStatus {
    return { ranges: this.coveredRanges(), syncedRanges: this.syncedRanges(), serverFilters: this.plan.serverFilters, segments: this.segments.size };
  }

  /** The oldest resourceVersion the segments' reflectors have seen, of those that have listed (for the status page). */
  get lastSyncResourceVersion(): string {
    return oldestOf([...this.segments.values()].map(({ reflector }) => reflector.lastSyncResourceVersion));
  }

  /** A list or watch failure of some segment since it last listed. */
  get lastError(): unknown {
    for (const { reflector } of this.segments.values()) if (reflector.lastError !== undefined) return reflector.lastError;
    return undefined;
  }

  get counters(): ReflectorCounters {
    const total = { ...this.endedCounters };
    for (const { reflector } of this.segments.values()) addCounters(total, reflector.counters);
    return total;
  }

  private shareChanged(): void {
    if (this.signal?.aborted) return;
    const wanted = normalizeRanges(this.plan.share.ranges());
    const covered = this.coveredRanges();
    const removed = subtractRanges(covered, wanted);
    const added = subtractRanges(wanted, covered);
    if (removed.length > 0) {
      for (const segment of [...this.segments.values()]) {
        segment.ranges = intersectRanges(segment.ranges, wanted);
        segment.syncedRanges = intersectRanges(segment.syncedRanges, wanted);
        if (segment.ranges.length === 0) this.endSegment(segment);
      }
      this.queue.shareNarrowed();
    }
    if (added.length > 0) {
      const limit = this.plan.serverFilters ? maxSegmentsWhenServerFilters : 1;
      if (this.segments.size < limit) this.startSegment(added, [], "");
      else {
        // One segment for the whole share; what the others had listed stays synced, at the version they had reached, while it lists again.
        const synced = this.syncedRanges();
        const reached = this.storeResourceVersion();
        for (const segment of [...this.segments.values()]) this.endSegment(segment);
        this.startSegment(wanted, synced, reached);
      }
    }
    if (removed.length > 0 || added.length > 0) {
      this.logger.info({ added: describeRanges(added), removed: describeRanges(removed), segments: this.segments.size }, "namespace share changed");
    }
  }

  private startSegment(ranges: HashRange[], syncedRanges: HashRange[], resourceVersion: string): void {
    const id = this.nextSegment++;
    const stop = new AbortController();
    const reflector = this.makeReflector(this.segmentListerWatcher(() => segment.ranges), this.queue.segmentStore(id), `${this.name}[${id}]`);
    const segment: Segment<T> = { id, ranges, syncedRanges, listed: false, resourceVersion, reflector, stop };
    this.segments.set(id, segment);
    const signal = this.signal ? AbortSignal.any([this.signal, stop.signal]) : stop.signal;
    const run: Promise<void> = reflector.run(signal).finally(() => this.runs.delete(run));
    this.runs.add(run);
    this.logger.debug({ segment: id, ranges: describeRanges(ranges) }, "segment started");
  }

  private endSegment(segment: Segment<T>): void {
    this.segments.delete(segment.id);
    segment.stop.abort();
    addCounters(this.endedCounters, segment.reflector.counters);
  }

  /** Lists and watches with the segment's ranges as they are at each request, where the server filters. */
  private segmentListerWatcher(ranges: () => readonly HashRange[]): ListerWatcher<T> {
    const { listerWatcher, plan } = this;
    const narrowed = <O extends ListOptions | WatchOptions>(options: O): O =>
      plan.serverFilters ? { ...options, shardSelector: shardSelector("object.metadata.namespace", ranges()) } : options;
    return {
      list: (options, signal) => listerWatcher.list(narrowed(options), signal),
      watch: (options, signal) => listerWatcher.watch(narrowed(options), signal),
    };
  }

  private coveredRanges(): HashRange[] {
    return normalizeRanges([...this.segments.values()].flatMap((segment) => segment.ranges));
  }

  private syncedRanges(): HashRange[] {
    return normalizeRanges([...this.segments.values()].flatMap((segment) => segment.syncedRanges));
  }
}

/** The oldest of the versions, "" ones (none yet) left out; one that cannot be ordered against the oldest so far leaves it. */
function oldestOf(resourceVersions: readonly string[]): string {
  let oldest = "";
  for (const resourceVersion of resourceVersions) {
    if (resourceVersion === "") continue;
    if (oldest === "" || (compareResourceVersions(resourceVersion, oldest) ?? 0) < 0) oldest = resourceVersion;
  }
  return oldest;
}

function addCounters(into: ReflectorCounters, counters: Readonly<ReflectorCounters>): void {
  into.lists += counters.lists;
  into.watches += counters.watches;
  into.relists += counters.relists;
  into.errors += counters.errors;
  into.idleWatchAborts += counters.idleWatchAborts;
}
