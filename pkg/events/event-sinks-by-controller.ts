// Each controller's Events written under its own identity, as each of kube-controller-manager's
// controllers writes its own through its own client: with --use-service-account-credentials the
// RBAC that lets a controller record Events is its ServiceAccount's, not the process's.
import type { KubeEvent } from "./event.ts";
import type { EventSeriesPatch, EventSink } from "./event-sink.ts";

export class EventSinksByController implements EventSink {
  private readonly sinks = new Map<string, EventSink>();

  /** `fallback` writes the Events of every reporting controller not routed elsewhere (the process's own). */
  constructor(private readonly fallback: EventSink) {}

  /** From now on, Events that `reportingController` reports go to `sink`. */
  route(reportingController: string, sink: EventSink): void {
    this.sinks.set(reportingController, sink);
  }

  create(event: KubeEvent): Promise<void> {
    return this.sinkOf(event).create(event);
  }

  patch(event: KubeEvent, patch: EventSeriesPatch): Promise<void> {
    return this.sinkOf(event).patch(event, patch);
  }

  private sinkOf(event: KubeEvent): EventSink {
    return this.sinks.get(event.reportingController) ?? this.fallback;
  }
}
