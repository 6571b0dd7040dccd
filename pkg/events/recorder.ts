// What controllers call to report what they did (client-go tools/events: EventRecorder and its makeEvent).
import { apiVersionOf, resources } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { EventType, KubeEvent, ObjectReference } from "./event.ts";
import { formatMicroTime } from "../kube/micro-time.ts";

/**
 * Records events.k8s.io/v1 Events about objects, as client-go's event recorder does: repeats of the same Event
 * become one Event with a growing series, and a flood from one object is cut short. A controller gets its own
 * (`SetupContext.events`), which writes only while the process leads.
 */
export interface EventRecorder {
  /**
   * Records an Event about `regarding`; `related` is a second object involved (e.g. the Pod a ReplicaSet created).
   * `reason` is a short UpperCamelCase machine-readable cause, `action` what was done, `note` the human-readable text.
   * Never blocks and never throws: the Event is written later, or dropped and counted.
   */
  eventf(
    regarding: KubeObject,
    related: KubeObject | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void;
}

export const defaultReportingController = "kube-loom";

/** Who reports: the controller, and which running instance of it. */
export interface EventSource {
  reportingController: string;
  reportingInstance: string;
}

export interface EventDetails {
  regarding: KubeObject;
  related: KubeObject | undefined;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

/** Builds the Event for one `eventf` call observed at `observedAt`, named `<regarding name>.<nameSuffix>`; throws when `regarding` has no name. */
export function makeEvent(details: EventDetails, source: EventSource, observedAt: number, nameSuffix: string): KubeEvent {
  const regarding = objectReference(details.regarding);
  if (!regarding.name) throw new Error(`event ${details.reason}: regarding object has no metadata.name`);
  return {
    apiVersion: apiVersionOf(resources.events),
    kind: "Event",
    metadata: {
      name: `${regarding.name}.${nameSuffix}`,
      // Events about cluster-scoped objects go to "default", as client-go puts them.
      namespace: regarding.namespace || "default",
    },
    eventTime: formatMicroTime(observedAt),
    reportingController: source.reportingController,
    reportingInstance: source.reportingInstance,
    type: details.type,
    reason: details.reason,
    action: details.action,
    note: truncateNote(details.note),
    regarding,
    ...(details.related ? { related: objectReference(details.related) } : {}),
  };
}

function objectReference(object: KubeObject): ObjectReference {
  const meta = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: meta?.name,
    namespace: meta?.namespace,
    uid: meta?.uid,
    resourceVersion: meta?.resourceVersion,
  };
}

/** The API server rejects notes above 1 KiB (validation.NoteLengthLimit, counted in UTF-8 bytes). */
export const noteLimitBytes = 1024;
const truncationMark = " ...";
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Cuts `note` to the API server's limit the way the scheduler does, without splitting a character. */
export function truncateNote(note: string): string {
  const bytes = utf8Encoder.encode(note);
  if (bytes.length <= noteLimitBytes) return note;
  let end = noteLimitBytes - truncationMark.length;
  // A continuation byte (10xxxxxx) at the cut means a character straddles it: cut before that character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return utf8Decoder.decode(bytes.subarray(0, end)) + truncationMark;
}

/**
 * Name suffixes as client-go makes them, the observation time in hex nanoseconds, but strictly increasing,
 * so Events recorded in the same millisecond about the same object still get distinct names.
 */
export class EventNameSuffixes {
  private last = 0n;

  next(observedAt: number): string {
    const nanos = BigInt(Math.trunc(observedAt)) * 1_000_000n;
    this.last = nanos > this.last ? nanos : this.last + 1n;
    return this.last.toString(16);
  }
}
