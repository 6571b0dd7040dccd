// What /debug/status.json answers and /debug/status shows: one picture of the process for a
// person on call. Times are epoch milliseconds on this process's wall clock (compare them with
// `generatedAt`, not with the reader's clock); durations are seconds.
import type { KeyTiming, ReconcileLoopSnapshot } from "../controller/reconcile-loop-snapshot.ts";
import type { EventDropReason, EventWrite } from "../events/event-observer.ts";

export interface StatusSnapshot {
  generatedAt: number;
  process: ProcessStatus;
  /** undefined with --leader-elect=false, or in a shard ring. */
  leaderElection: LeaderElectionStatus | undefined;
  /** undefined unless --shard-ring names a ring. */
  shardRing: ShardRingStatus | undefined;
  /** Empty until the API server has been reached and the controllers built. */
  controllers: ControllerStatus[];
  informers: InformerStatus[];
  /** Newest first. */
  events: RecentEventStatus[];
  /** What the event broadcaster did with the Events recorded since start. */
  eventCounts: EventCountsStatus;
}

export interface ProcessStatus {
  identity: string;
  version: string;
  startedAt: number;
}

export interface LeaderElectionStatus {
  /** namespace/name of the Lease. */
  lease: string;
  /** This process holds the Lease. */
  leading: boolean;
  /** The holder last seen on the Lease; "" when nobody holds it (released, or not read yet). */
  holder: string;
  /** acquireTime on the Lease, as its holder's clock wrote it; undefined without a holder. */
  holderSince: number | undefined;
  /** renewTime on the Lease, as its holder's clock wrote it. */
  lastRenewal: number | undefined;
  leaseTransitions: number;
  /**
   * Every identity known to compete for the Lease: this process, and each holder seen since it
   * started. A candidate that never held the Lease cannot be seen from here.
   */
  candidates: CandidateStatus[];
}

export interface CandidateStatus {
  identity: string;
  self: boolean;
  holding: boolean;
  /** When this process first saw it hold the Lease; undefined if never. */
  firstSeenHolding: number | undefined;
  /** When this process last saw it hold the Lease (now, while it holds it). */
  lastSeenHolding: number | undefined;
}

export interface ControllerStatus {
  name: string;
  /** One per workqueue the controller drains (the garbage collector has two). */
  loops: ReconcileLoopStatus[];
  /** Anything else the controller wants a person to see, e.g. the garbage collector's graph size. */
  details: StatusDetail[];
}

/** What a controller tells the status page about itself (Runnable.status). */
export interface ControllerReport {
  /** Its runners' own state (ReconcileRunner.status); the page adds what it observed of their reconciles. */
  loops: ReconcileLoopSnapshot[];
  /** Figures of its own, shown as a table under the loops. */
  details?: StatusDetail[];
}

/** One labelled figure on the status page. */
export interface StatusDetail {
  /** What the figure is, e.g. "objects in graph". */
  label: string;
  /** The figure. */
  value: string | number;
}

/**
 * A reconcile loop as the page shows it: the runner's snapshot (name, queue, state, workers, depth,
 * keys in flight), what the page's reconcile observer saw, and the workqueue's counters.
 */
export interface ReconcileLoopStatus extends ReconcileLoopSnapshot {
  /** workqueue_adds_total and workqueue_retries_total; undefined for a queue that reports no metrics. */
  adds: number | undefined;
  retries: number | undefined;
  /** Reconciles finished since start, by outcome. */
  outcomes: ReconcileOutcomeCounts;
  /** Reconciles finished per second over the last minute. */
  ratePerSecond: number;
  /** Over the most recent reconciles (`sampleCount` of them); undefined before the first. */
  p50Seconds: number | undefined;
  p99Seconds: number | undefined;
  sampleCount: number;
  /** The slowest of those recent reconciles. */
  slowest: KeyTiming | undefined;
  /** Newest first. */
  lastErrors: ReconcileErrorStatus[];
}

export interface ReconcileOutcomeCounts {
  success: number;
  error: number;
  /** Waits with backoff that are no failure (a Requeue result). */
  requeue: number;
  requeueAfter: number;
  terminalError: number;
}

export interface ReconcileErrorStatus {
  at: number;
  key: string;
  message: string;
  /** Retried with backoff, or given up on (TerminalError). */
  terminal: boolean;
}

export interface InformerStatus {
  /** The factory's description, e.g. "pods.v1" or "leases.v1.coordination.k8s.io{namespace=kube-system,…}". */
  name: string;
  synced: boolean;
  objects: number;
  /** Of the last list, event or bookmark applied; "" before the first list. */
  resourceVersion: string;
  lists: number;
  /** Lists forced by an expired resourceVersion. */
  relists: number;
  watches: number;
  /** Failed lists and watches. */
  errors: number;
  handlerErrors: number;
  /** Why the cache has not (re)filled yet, if a list or watch failed since it last did. */
  lastError: string | undefined;
  /** Present when it caches only this process's share of the namespaces. */
  shard?: InformerShardStatus;
}

/** Which namespaces a sharded informer caches, and how it gets only those. */
export interface InformerShardStatus {
  /** The namespace-hash ranges it caches, e.g. "0x00…-0x40…, 0x80…-0x10000000000000000". */
  ranges: string;
  /** The fraction of the hash space they make, in [0, 1]. */
  fraction: number;
  /** The ranges of `ranges` whose objects are listed into the cache. */
  syncedRanges: string;
  /** The API server filters by shard; false: everything arrives and this process drops what is outside. */
  serverFilters: boolean;
  /** Reflectors (list and watch) running, one per segment of ranges. */
  segments: number;
}

export interface RecentEventStatus {
  /** When last recorded. */
  at: number;
  type: "Normal" | "Warning";
  reason: string;
  /** "Kind namespace/name". */
  regarding: string;
  note: string;
  reportingController: string;
  /** How often this Event was recorded (same type, reason, object and note). */
  count: number;
}

export interface EventCountsStatus {
  /** New Event objects created, and series updates written. */
  written: Record<EventWrite, number>;
  /** Repeats counted into an Event's series instead of being written on their own. */
  aggregated: number;
  /** Events never written, by why. */
  dropped: Record<EventDropReason, number>;
}

/** This process as a member of a shard ring (--shard-ring). */
export interface ShardRingStatus {
  ring: string;
  /** This process's member Lease; "" while it is not a member (joining again). */
  member: string;
  /** Every member Lease seen, and every holder in the slot table; `silent`: alive, but its Lease unchanged for 2.5 retry periods. */
  members: { name: string; self: boolean; alive: boolean; silent: boolean; slots: number }[];
  /** Slots in the ring's table: 256, more once slots crowded with namespaces were split. */
  slots: number;
  /** Slots held, of `slots`, draining ones included. */
  held: number;
  draining: number;
  /** Slots cached ahead: this process would hold them if the silent members were declared dead. */
  cachedAhead: number;
  /** The namespace-hash ranges held, as the API server's shard selector writes bounds. */
  ranges: string[];
  /** Namespaces with cached objects that this process acts on now. */
  namespaces: string[];
  handovers: { taken: number; released: number };
}
