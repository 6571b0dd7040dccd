// One change the soak's independent watch saw, in the form its checkers consume.
import type { KubeObject } from "../../pkg/kube/objects.ts";

export type ObservedResource = "pods" | "replicasets" | "configmaps" | "secrets" | "networks";

export interface ObservedChange {
  resource: ObservedResource;
  type: "upsert" | "delete";
  /** For a delete: the final state (or the last known one, when `inferred`). */
  object: KubeObject;
  /** The etcd revision of the change (resourceVersions are etcd revisions on this control plane). */
  revision: number;
  /** Monotonic milliseconds (performance.now()) when the watch delivered it. */
  receivedAt: number;
  /** Created while watched: not in a (re)list, not a modification. */
  created: boolean;
  /** A deletion a relist found, without the watch having seen it: revision and final state are estimates. */
  inferred: boolean;
}
