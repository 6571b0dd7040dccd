// What the event broadcaster reports, for whoever wants to turn it into metrics.
import { ignoringCalls } from "../noop/ignoring-calls.ts";

export type EventDropReason =
  /** The buffer between recorders and the writer was full. */
  | "buffer-full"
  /** The source already wrote its share of Events about that object. */
  | "spam-filter"
  /** The regarding object has no name, so no Event can refer to it. */
  | "invalid"
  /** Every write attempt failed, or the server refused the Event. */
  | "write-failed"
  /** Recorded after shutdown, or still buffered when the shutdown deadline passed. */
  | "shutdown";

export interface EventMetrics {
  /** A new Event was created, or an Event's series written. */
  written(write: "create" | "series"): void;
  /** A repeat was counted into an existing Event's series instead of being written. */
  aggregated(): void;
  dropped(reason: EventDropReason): void;
}

export const noopEventMetrics: EventMetrics = ignoringCalls(["written", "aggregated", "dropped"]);
