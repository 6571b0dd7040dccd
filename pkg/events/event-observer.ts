// What the event broadcaster tells whoever watches it: each Event taken for writing, each write,
// each repeat folded into a series, and each Event dropped and why. The status page is one
// observer (the recent Events and these counts); the broadcaster knows none.
import { ignoringCalls } from "../noop/ignoring-calls.ts";
import type { KubeEvent } from "./event.ts";

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

/** A new Event object, or a series update of an Event written before. */
export type EventWrite = "create" | "series";

export interface EventObserver {
  /** An Event was taken for writing (it may still be folded into a series, filtered or fail). */
  recorded(event: KubeEvent, observedAt: number): void;
  /** A new Event was created, or an Event's series written. */
  written(write: EventWrite): void;
  /** A repeat was counted into an existing Event's series instead of being written. */
  aggregated(): void;
  dropped(reason: EventDropReason): void;
}

export const noopEventObserver: EventObserver = ignoringCalls(["recorded", "written", "aggregated", "dropped"]);
