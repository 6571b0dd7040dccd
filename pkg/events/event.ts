// The events.k8s.io/v1 Event as kube-loom writes it: only the fields the new-style API uses,
// with the ones client-go's recorder always sets made required.
import type { KubeObject, ObjectMeta } from "../kube/objects.ts";

/** An Event's type: "Warning" for something a person may need to act on, "Normal" otherwise. */
export type EventType = "Normal" | "Warning";

/** corev1.ObjectReference: which object an Event is about. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** How often an identical Event has been seen, and when last. */
export interface EventSeries {
  count: number;
  /** MicroTime. */
  lastObservedTime: string;
}

export interface KubeEvent extends KubeObject {
  apiVersion: string;
  kind: "Event";
  metadata: ObjectMeta & { name: string; namespace: string };
  /** MicroTime of the first observation. */
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  regarding: ObjectReference;
  related?: ObjectReference;
}

/** The object a reference points at, whatever version of it: resourceVersion is left out. */
export function referencedObject(reference: ObjectReference | undefined): (string | undefined)[] {
  if (!reference) return [];
  return [reference.apiVersion, reference.kind, reference.namespace, reference.name, reference.uid];
}
