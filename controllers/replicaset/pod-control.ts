// The writes the ReplicaSet controller makes to Pods, each reported as an Event on the
// ReplicaSet the way kube-controller-manager's RealPodControl reports them, and each Pod the API
// server stored handed to an observer, so the controller can wait until its cache has seen it.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import { ApiError, isAlreadyExists, isConflict, isNamespaceTerminating, isNotFound } from "../../pkg/kube/errors.ts";
import { apiVersionOf, resources } from "../../pkg/kube/gvr.ts";
import type { OwnerReference, Wire } from "../../pkg/kube/objects.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import { errorMessage } from "../../pkg/errors/expected-error.ts";
import { mayHaveTakenEffect } from "./unsettled-writes.ts";

type Pod = Wire<V1Pod>;
type ReplicaSet = Wire<V1ReplicaSet>;

export const replicaSetKind = "ReplicaSet";

/**
 * Told of every Pod the API server stored for a create or patch, with the controller reference
 * the write was made for (undefined when the stored Pod has no controller, as after a release).
 */
export type PodWriteObserver = (stored: Pod, controllerRef: OwnerReference | undefined) => void;

export class PodControl {
  constructor(
    private readonly client: KubeClient,
    private readonly events: EventRecorder,
    private readonly onWrite: PodWriteObserver,
  ) {}

  /**
   * Creates one Pod from the ReplicaSet's template under `name`; rejects with the API error after
   * recording FailedCreate. A name taken (AlreadyExists) gets no Event: it is either this
   * controller's own earlier create being settled or a clash of random names, retried under another.
   */
  async createPod(rs: ReplicaSet, name: string): Promise<Pod> {
    const namespace = rs.metadata?.namespace ?? "";
    try {
      const created = await this.pods(namespace).create(podFromTemplate(rs, name));
      this.podCreated(rs, created);
      return created;
    } catch (err) {
      // In a terminating namespace every creation fails; that is not worth a Warning.
      if (!isNamespaceTerminating(err) && !isAlreadyExists(err)) {
        this.events.eventf(rs, undefined, "Warning", "FailedCreate", "Create", `Error creating: ${failureMessage(err)}`);
      }
      throw err;
    }
  }

  /**
   * Settles a create whose answer was lost by sending it again under the same name: the Pod when
   * it exists now (created by either request), undefined when the API server refused it or the name
   * belongs to a Pod of someone else. A repeat whose answer is lost again rejects.
   */
  async createPodAgain(rs: ReplicaSet, name: string): Promise<Pod | undefined> {
    try {
      return await this.createPod(rs, name);
    } catch (err) {
      if (mayHaveTakenEffect(err)) throw err;
      if (!isAlreadyExists(err)) return undefined;
    }
    let stored: Pod;
    try {
      stored = await this.pods(rs.metadata?.namespace ?? "").get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined; // made by the first request, deleted since by someone else
      throw err;
    }
    if (controllerRefOf(stored)?.uid !== rs.metadata?.uid) return undefined;
    this.podCreated(rs, stored);
    return stored;
  }

  /**
   * Deletes the Pod, only if it is still the Pod of that UID (so a delete sent again after a lost
   * answer cannot hit a new Pod of the same name); a Pod already gone rejects with NotFound, or
   * Conflict for a new Pod under its name, and no Event.
   */
  async deletePod(rs: ReplicaSet, pod: Pod): Promise<void> {
    const name = pod.metadata?.name ?? "";
    try {
      await this.pods(pod.metadata?.namespace ?? "").delete(name, { preconditions: { uid: pod.metadata?.uid } });
      this.events.eventf(rs, pod, "Normal", "SuccessfulDelete", "Delete", `Deleted pod: ${name}`);
    } catch (err) {
      if (!isPodGone(err)) this.events.eventf(rs, pod, "Warning", "FailedDelete", "Delete", `Error deleting: ${failureMessage(err)}`);
      throw err;
    }
  }

  /** A strategic merge patch of the Pod's metadata (adoption and release). */
  async patchPod(pod: Pod, patch: object): Promise<void> {
    const patched = await this.pods(pod.metadata?.namespace ?? "").patch(pod.metadata?.name ?? "", patch, "strategic");
    this.onWrite(patched, controllerRefOf(patched));
  }

  private pods(namespace: string): ResourceClient<Pod> {
    return this.client.dynamic.resource<Pod>(resources.pods, namespace);
  }

  private podCreated(rs: ReplicaSet, created: Pod): void {
    this.onWrite(created, controllerRefTo(rs));
    this.events.eventf(rs, created, "Normal", "SuccessfulCreate", "Create", `Created pod: ${created.metadata?.name ?? ""}`);
  }
}

/** The ownerReference that makes `rs` the controller of a Pod. */
export function controllerRefTo(rs: ReplicaSet): OwnerReference {
  return {
    apiVersion: apiVersionOf(resources.replicaSets),
    kind: replicaSetKind,
    name: rs.metadata?.name ?? "",
    uid: rs.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * A new Pod as kube-controller-manager's GetPodFromTemplate builds it: the template's labels,
 * annotations, finalizers and spec, and generateName; `name`, when given, is the one the API
 * server would have generated (pod-names.ts), chosen here so a create can be repeated.
 */
export function podFromTemplate(rs: ReplicaSet, name?: string): Pod {
  const template = rs.spec?.template;
  const owner = rs.metadata?.name ?? "";
  const { labels, annotations, finalizers } = template?.metadata ?? {};
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: podNamePrefix(owner),
      ...(name === undefined ? {} : { name }),
      ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ...(finalizers && finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
      ownerReferences: [controllerRefTo(rs)],
    },
    ...(template?.spec ? { spec: template.spec } : {}),
  };
}

/** The prefix of the ReplicaSet's Pod names: the dash makes `web-x7k2p`; a name already at the length limit goes without it. */
export function podNamePrefix(replicaSetName: string): string {
  return replicaSetName.length < 253 ? `${replicaSetName}-` : replicaSetName;
}

/** A delete's answer saying the Pod is gone: NotFound, or Conflict when a new Pod has its name (UID precondition). */
export function isPodGone(err: unknown): boolean {
  return isNotFound(err) || isConflict(err);
}

/** The API server's own words for a failed request (its Status message), else the error's message. */
export function failureMessage(err: unknown): string {
  if (err instanceof ApiError) return err.status?.message ?? err.message;
  return errorMessage(err);
}
