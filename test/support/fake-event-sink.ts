// An in-memory EventSink for tests: stores Events like the API server would, logs every call,
// and fails calls on demand.
import { ApiError } from "../../pkg/kube/errors.ts";
import type { KubeEvent } from "../../pkg/events/event.ts";
import type { EventSeriesPatch, EventSink } from "../../pkg/events/event-sink.ts";

export interface EventSinkCall {
  method: "create" | "patch";
  /** namespace/name of the Event. */
  key: string;
  body: KubeEvent | EventSeriesPatch;
}

export class FakeEventSink implements EventSink {
  /** Stored Events by namespace/name. */
  readonly events = new Map<string, KubeEvent>();
  readonly calls: EventSinkCall[] = [];
  /** Consulted before each call: an error it returns is thrown instead of doing the call. */
  failWith: (call: EventSinkCall) => unknown = () => undefined;
  /** While set, calls wait for it before doing anything. */
  gate: Promise<void> | undefined;

  async create(event: KubeEvent): Promise<void> {
    const key = `${event.metadata.namespace}/${event.metadata.name}`;
    await this.enter({ method: "create", key, body: structuredClone(event) });
    if (this.events.has(key)) throw apiError(409, "AlreadyExists", "POST", key);
    this.events.set(key, structuredClone(event));
  }

  async patch(event: KubeEvent, patch: EventSeriesPatch): Promise<void> {
    const key = `${event.metadata.namespace}/${event.metadata.name}`;
    await this.enter({ method: "patch", key, body: structuredClone(patch) });
    const stored = this.events.get(key);
    if (!stored) throw apiError(404, "NotFound", "PATCH", key);
    this.events.set(key, { ...stored, ...structuredClone(patch) });
  }

  /** Calls of one method, in order. */
  callsOf(method: EventSinkCall["method"]): EventSinkCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  private async enter(call: EventSinkCall): Promise<void> {
    this.calls.push(call);
    await this.gate;
    const failure = this.failWith(call);
    if (failure !== undefined) throw failure;
  }
}

function apiError(code: number, reason: string, method: string, key: string): ApiError {
  return new ApiError(code, reason, `${method} events ${key}: ${reason}`, method, key);
}
