// The writes the ReplicaSet controller makes to Pods, each reported as an Event on the
// ReplicaSet the way kube-controller-manager's RealPodControl reports them, and each Pod the API
// server stored handed to an observer, so the controller can wait until its cache has seen it.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ApiError, isNotFound } from "../../pkg/kube/errors.ts";
import { apiVersionOf, resources } from "../../pkg/kube/gvr.ts";
import type { OwnerReference, Wire } from "../../pkg/kube/objects.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import { errorMessage } from "../../pkg/errors/expected-error.ts";

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

  /** Creates one Pod from the ReplicaSet's template; rejects with the API error after recording FailedCreate. */
  async createPod(rs: ReplicaSet): Promise<void> {
    const namespace = rs.metadata?.namespace ?? "";
    try {
      const created = await this.client.dynamic.resource<Pod>(resources.pods, namespace).create(podFromTemplate(rs));
      this.onWrite(created, controllerRefTo(rs));
      this.events.eventf(rs, created, "Normal", "SuccessfulCreate", "Create", `Created pod: ${created.metadata?.name ?? ""}`);
    } catch (err) {
      // In a terminating namespace every creation fails; that is not worth a Warning.
      if (!isNamespaceTerminating(err)) this.events.eventf(rs, undefined, "Warning", "FailedCreate", "Create", `Error creating: ${failureMessage(err)}`);
      throw err;
    }
  }

  /** Deletes the Pod; a Pod already gone rejects with NotFound and no Event. */
  async deletePod(rs: ReplicaSet, pod: Pod): Promise<void> {
    const name = pod.metadata?.name ?? "";
    try {
      await this.client.dynamic.resource<Pod>(resources.pods, pod.metadata?.namespace).delete(name);
      this.events.eventf(rs, pod, "Normal", "SuccessfulDelete", "Delete", `Deleted pod: ${name}`);
    } catch (err) {
      if (!isNotFound(err)) this.events.eventf(rs, pod, "Warning", "FailedDelete", "Delete", `Error deleting: ${failureMessage(err)}`);
      throw err;
    }
  }

  /** A strategic merge patch of the Pod's metadata (adoption and release). */
  async patchPod(pod: Pod, patch: object): Promise<void> {
    const patched = await this.client.dynamic.resource<Pod>(resources.pods, pod.metadata?.namespace).patch(pod.metadata?.name ?? "", patch, "strategic");
    this.onWrite(patched, controllerRefOf(patched));
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

/** A new Pod as kube-controller-manager's GetPodFromTemplate builds it: the template's labels, annotations, finalizers and spec. */
export function podFromTemplate(rs: ReplicaSet): Pod {
  const template = rs.spec?.template;
  const name = rs.metadata?.name ?? "";
  const { labels, annotations, finalizers } = template?.metadata ?? {};
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      // The dash makes `web-x7k2p`; a name already at the length limit goes without it.
      generateName: name.length < 253 ? `${name}-` : name,
      ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ...(finalizers && finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
      ownerReferences: [controllerRefTo(rs)],
    },
    ...(template?.spec ? { spec: template.spec } : {}),
  };
}

/** The API server's own words for a failed request (its Status message), else the error's message. */
export function failureMessage(err: unknown): string {
  if (err instanceof ApiError) return err.status?.message ?? err.message;
  return errorMessage(err);
}

export function isNamespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && (err.status?.details?.causes ?? []).some((cause) => cause.reason === "NamespaceTerminating");
}
