// The aggregation of client-go's events.k8s.io broadcaster: an Event identical to one observed less than
// `finishMs` ago is not written again but counted into the first one's series. Series are written in batches
// by the broadcaster, so a repeat costs nothing but a counter here.
import { type EventSeries, type KubeEvent, referencedObject } from "./event.ts";
import { formatMicroTime } from "../kube/micro-time.ts";

/** client-go's finishTime: a series with no repeat for this long is over. */
const seriesFinishMs = 6 * 60_000;

export interface TrackedEvent {
  /** The Event as first created (without series). */
  readonly event: KubeEvent;
  /** Observations so far, the first included. */
  count: number;
  lastObservedAt: number;
  /** The series grew since it was last handed out for writing. */
  seriesUnwritten: boolean;
}

export class SeriesTracker {
  private readonly tracked = new Map<string, TrackedEvent>();

  constructor(private readonly finishMs: number = seriesFinishMs) {}

  get size(): number {
    return this.tracked.size;
  }

  /** Counts `event` into the series of an identical tracked Event; false when there is none (or it has finished). */
  countRepeat(event: KubeEvent, observedAt: number): boolean {
    const key = seriesKey(event);
    const entry = this.tracked.get(key);
    if (!entry) return false;
    if (observedAt - entry.lastObservedAt > this.finishMs) {
      this.tracked.delete(key);
      return false;
    }
    entry.count++;
    entry.lastObservedAt = Math.max(entry.lastObservedAt, observedAt);
    entry.seriesUnwritten = true;
    return true;
  }

  /** Starts tracking a new Event so that its repeats become a series. */
  track(event: KubeEvent, observedAt: number): void {
    this.tracked.set(seriesKey(event), { event, count: 1, lastObservedAt: observedAt, seriesUnwritten: false });
  }

  /** Tracked Events whose series grew since the last call; they count as written from now on. */
  takeUnwrittenSeries(): TrackedEvent[] {
    const unwritten = [...this.tracked.values()].filter((entry) => entry.seriesUnwritten);
    for (const entry of unwritten) entry.seriesUnwritten = false;
    return unwritten;
  }

  /** Forgets Events last observed more than `finishMs` before `now`: an identical one then starts a new Event. */
  expire(now: number): void {
    for (const [key, entry] of this.tracked) {
      if (now - entry.lastObservedAt > this.finishMs) this.tracked.delete(key);
    }
  }
}

export function seriesOf(entry: TrackedEvent): EventSeries {
  return { count: entry.count, lastObservedTime: formatMicroTime(entry.lastObservedAt) };
}

/**
 * Identical means same source, objects, type, reason, action and note. client-go's key leaves the note out but keeps
 * the objects' resourceVersions; kube-loom keeps the note and, like the old correlator, ignores resourceVersions.
 */
export function seriesKey(event: KubeEvent): string {
  return JSON.stringify([
    event.reportingController,
    event.reportingInstance,
    referencedObject(event.regarding),
    referencedObject(event.related),
    event.type,
    event.reason,
    event.action,
    event.note,
  ]);
}
