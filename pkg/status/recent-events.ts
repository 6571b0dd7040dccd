// The Events this process recorded lately, newest first, for the status page. A repeat (an
// Event of the same series, by the events package's own rule) moves its entry to the front and
// counts up instead of taking another slot.
import type { KubeEvent, ObjectReference } from "../events/event.ts";
import { seriesKey } from "../events/series-tracker.ts";
import type { RecentEventStatus } from "./status-snapshot.ts";

const defaultRecentEventCapacity = 50;

export class RecentEvents {
  private readonly entries: { identity: string; status: RecentEventStatus }[] = [];

  constructor(private readonly capacity: number = defaultRecentEventCapacity) {}

  record(event: KubeEvent, observedAt: number): void {
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

  list(): RecentEventStatus[] {
    return this.entries.map((entry) => ({ ...entry.status }));
  }
}

/** "Kind namespace/name", or "Kind name" for a cluster-scoped object. */
function describeReference(reference: ObjectReference): string {
  const name = reference.namespace ? `${reference.namespace}/${reference.name ?? ""}` : (reference.name ?? "");
  return `${reference.kind ?? "?"} ${name}`;
}
