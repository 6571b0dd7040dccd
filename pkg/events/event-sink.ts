// Where the broadcaster writes Events: the API server in production (kube-event-sink.ts), memory in tests.
// Failures are thrown as the KubeClient throws them (ApiError, TransportError) so retries can tell them apart.
import type { EventSeries, KubeEvent } from "./event.ts";

export interface EventSeriesPatch {
  series: EventSeries;
}

export interface EventSink {
  /** Creates the Event in its metadata.namespace. */
  create(event: KubeEvent): Promise<void>;
  /** Merges `patch` into `event`, created before; rejects with a 404 ApiError when it no longer exists. */
  patch(event: KubeEvent, patch: EventSeriesPatch): Promise<void>;
}
