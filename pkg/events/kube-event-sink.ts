// EventSink over the dynamic client: events.k8s.io/v1 Events, series updates as JSON merge patches.
import type { KubeClient } from "../kube/client.ts";
import { resources, resourceType } from "../kube/gvr.ts";
import type { KubeEvent } from "./event.ts";
import type { EventSeriesPatch, EventSink } from "./event-sink.ts";

/** events.k8s.io/v1 Events as the recorder builds them (metadata.namespace always set). */
const recordedEvents = resourceType<KubeEvent>(resources.events);

export class KubeEventSink implements EventSink {
  constructor(private readonly client: Pick<KubeClient, "dynamic">) {}

  async create(event: KubeEvent): Promise<void> {
    await this.client.dynamic.resource(recordedEvents, event.metadata.namespace).create(event);
  }

  async patch(event: KubeEvent, patch: EventSeriesPatch): Promise<void> {
    await this.client.dynamic.resource(recordedEvents, event.metadata.namespace).patch(event.metadata.name, patch, "merge");
  }
}
