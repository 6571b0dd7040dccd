// The status page's event observer: the Events this process recorded lately, newest first, and
// counts of what the broadcaster did with them. A repeat (an Event of the same series, by the
// events package's own rule) moves its entry to the front and counts up instead of taking
// another slot.
import type { KubeEvent, ObjectReference } from "../events/event.ts";
import type { EventDropReason, EventObserver, EventWrite } from "../events/event-observer.ts";
import { seriesKey } from "../events/series-tracker.ts";
import type { EventCountsStatus, RecentEventStatus } from "./status-snapshot.ts";

const defaultRecentEventCapacity = 50;

export class RecentEvents implements EventObserver {
  private readonly entries: { identity: string; status: RecentEventStatus }[] = [];
  private readonly tally: EventCountsStatus = {
    written: { create: 0, series: 0 },
    aggregated: 0,
    dropped: { "buffer-full": 0, "spam-filter": 0, invalid: 0, "write-failed": 0, shutdown: 0 },
  };

  constructor(private readonly capacity: number = defaultRecentEventCapacity) {}

  recorded(event: KubeEvent, observedAt: number): void {
    const regarding = describeReference(event.regarding);
    const identity = seriesKey(event);
    const index = this.entries.findIndex((entry) => entry.identity === identity);
    const previous = index >= 0 ? this.entries.splice(index, 1)[0] : undefined;
    const status: RecentEventStatus = {
      at: observedAt,
      type: event.type,
      reason: event.reason,
      regarding,
      note: event.note,
      reportingController: event.reportingController,
      count: (previous?.status.count ?? 0) + 1,
    };
    this.entries.unshift({ identity, status });
    this.entries.length = Math.min(this.entries.length, this.capacity);
  }

  written(write: EventWrite): void {
    this.tally.written[write]++;
  }

  aggregated(): void {
    this.tally.aggregated++;
  }

  dropped(reason: EventDropReason): void {
    this.tally.dropped[reason]++;
  }

  list(): RecentEventStatus[] {
    return this.entries.map((entry) => ({ ...entry.status }));
  }

  counts(): EventCountsStatus {
    const { written, aggregated, dropped } = this.tally;
    return { written: { ...written }, aggregated, dropped: { ...dropped } };
  }
}

/** "Kind namespace/name", or "Kind name" for a cluster-scoped object. */
function describeReference(reference: ObjectReference): string {
  const name = reference.namespace ? `${reference.namespace}/${reference.name ?? ""}` : (reference.name ?? "");
  return `${reference.kind ?? "?"} ${name}`;
}
