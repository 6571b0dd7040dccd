// Pods and ReplicaSets for the replicaset controller's unit tests, as the informers hand them over.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import type { Wire } from "../../pkg/kube/objects.ts";

export type Pod = Wire<V1Pod>;
export type ReplicaSet = Wire<V1ReplicaSet>;

export const now = Date.parse("2030-01-01T12:00:00Z");

/** RFC 3339 time `secondsAgo` before `now`. */
export function ago(secondsAgo: number): string {
  return new Date(now - secondsAgo * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export interface PodShape {
  name: string;
  uid?: string;
  node?: string;
  phase?: string;
  /** Seconds since the Pod became ready; undefined: not ready. */
  readyFor?: number;
  /** Ready, but without a lastTransitionTime. */
  readyWithoutTime?: boolean;
  deletionCost?: string;
  restarts?: number;
  sidecarRestarts?: number;
  createdAgo?: number;
  labels?: Record<string, string>;
  owner?: ReplicaSet;
  deleting?: boolean;
}

export function pod(shape: PodShape): Pod {
  const ready = shape.readyFor !== undefined || shape.readyWithoutTime;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: shape.name,
      namespace: "ns",
      uid: shape.uid ?? `uid-${shape.name}`,
      resourceVersion: "1",
      labels: shape.labels ?? { app: "web" },
      ...(shape.createdAgo !== undefined ? { creationTimestamp: ago(shape.createdAgo) } : {}),
      ...(shape.deletionCost !== undefined ? { annotations: { "controller.kubernetes.io/pod-deletion-cost": shape.deletionCost } } : {}),
      ...(shape.deleting ? { deletionTimestamp: ago(0) } : {}),
      ...(shape.owner
        ? {
            ownerReferences: [
              {
                apiVersion: "apps/v1",
                kind: "ReplicaSet",
                name: shape.owner.metadata?.name ?? "",
                uid: shape.owner.metadata?.uid ?? "",
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      containers: [{ name: "app", image: "app" }],
      initContainers: [{ name: "sidecar", image: "sidecar", restartPolicy: "Always" }],
      ...(shape.node ? { nodeName: shape.node } : {}),
    },
    status: {
      phase: shape.phase ?? "Running",
      ...(ready
        ? { conditions: [{ type: "Ready", status: "True", ...(shape.readyFor !== undefined ? { lastTransitionTime: ago(shape.readyFor) } : {}) }] }
        : {}),
      containerStatuses: [{ name: "app", image: "app", imageID: "", ready: !!ready, restartCount: shape.restarts ?? 0 }],
      initContainerStatuses: [{ name: "sidecar", image: "sidecar", imageID: "", ready: true, restartCount: shape.sidecarRestarts ?? 0 }],
    },
  };
}

export interface ReplicaSetShape {
  uid?: string;
  minReadySeconds?: number;
  generation?: number;
  /** matchLabels of the selector; default app=web. */
  selector?: Record<string, string>;
}

export function replicaSet(name: string, replicas: number, extra: ReplicaSetShape = {}): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: "ns", uid: extra.uid ?? `uid-${name}`, generation: extra.generation ?? 1, resourceVersion: "1" },
    spec: {
      replicas,
      minReadySeconds: extra.minReadySeconds ?? 0,
      selector: { matchLabels: extra.selector ?? { app: "web" } },
      template: { metadata: { labels: { app: "web", tier: "front" } }, spec: { containers: [{ name: "app", image: "app" }] } },
    },
    status: { replicas: 0 },
  };
}
