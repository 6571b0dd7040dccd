// Shapes of Kubernetes objects as they travel on the wire (plain JSON).
// client-node's generated models turn timestamps into Date objects; informers and the
// dynamic client keep the raw JSON instead, so these types describe exactly that.

/** client-node's model type with every Date replaced by the RFC 3339 string the server sends. */
export type Wire<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** metav1.OwnerReference: an object this one belongs to, and is deleted with by the garbage collector. */
export interface OwnerReference {
  /** The owner's group/version, e.g. "apps/v1". */
  apiVersion: string;
  /** The owner's kind, e.g. "ReplicaSet". */
  kind: string;
  /** The owner's name; an owner is always in the same namespace as the object, or cluster-scoped. */
  name: string;
  /** The owner's UID: a new object of the same name is a different owner. */
  uid: string;
  /** True on at most one reference: the owner whose controller manages this object. */
  controller?: boolean;
  /** True: foreground deletion of the owner waits until this object is gone. */
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta as it arrives on the wire: the fields every object has. */
export interface ObjectMeta {
  /** Unique within the namespace (or the cluster, for a cluster-scoped resource). */
  name?: string;
  /** On create without a name: the server appends a random suffix to this prefix. */
  generateName?: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  /** Set by the server; tells apart two objects that had the same name at different times. */
  uid?: string;
  /** Opaque version of this object; compare for equality only, never order. */
  resourceVersion?: string;
  /** Bumped by the server on every change to the spec (not status, not metadata) where the resource tracks it. */
  generation?: number;
  /** RFC 3339, set by the server. */
  creationTimestamp?: string;
  /** RFC 3339: set once deletion was asked for; the object stays until its finalizers are gone. */
  deletionTimestamp?: string;
  /** The grace period the deletion was asked with. */
  deletionGracePeriodSeconds?: number;
  /** Identifying key/value pairs that selectors match. */
  labels?: Record<string, string>;
  /** Free-form key/value pairs; not selectable. */
  annotations?: Record<string, string>;
  /** The objects this one belongs to. */
  ownerReferences?: OwnerReference[];
  /** Names of the parties that must finish before the object is removed; see `finalizer()`. */
  finalizers?: string[];
  /** Server-side apply's record of which manager owns which field; left untyped. */
  managedFields?: unknown[];
}

/** Any Kubernetes object: typed models and unstructured JSON both fit. */
export interface KubeObject {
  /** Group/version, e.g. "v1" or "apps/v1"; lists' items and watch events may leave it out. */
  apiVersion?: string;
  /** e.g. "Pod"; lists' items and watch events may leave it out. */
  kind?: string;
  /** Name, namespace, labels, owners and the rest. */
  metadata?: ObjectMeta;
}

/** metav1.ListMeta: where a list stands. */
export interface ListMeta {
  /** The collection's version the list reflects; a watch from it sees every later change. */
  resourceVersion?: string;
  /** Set when the list was cut by `limit`: pass it as `continue` to get the next page. */
  continue?: string;
  /** Roughly how many items the later pages hold, when the server knows. */
  remainingItemCount?: number;
  /** Present when the server applied the request's shardSelector (KEP-5866): the selector it applied. */
  shardInfo?: {
    /** The shard selector, as the server parsed it from the request. */
    selector?: string;
  };
}

/** A LIST response: the items and the list's metadata. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  /** e.g. "v1". */
  apiVersion?: string;
  /** e.g. "PodList". */
  kind?: string;
  /** The list's resourceVersion and continue token. */
  metadata?: ListMeta;
  /** The objects, in the server's order (by key). */
  items: T[];
}

/** metav1.Status, the body of every API error and of in-stream watch ERROR events. */
export interface Status {
  /** Always "Status". */
  kind?: "Status";
  /** "v1". */
  apiVersion?: string;
  /** "Failure" for every error. */
  status?: "Success" | "Failure";
  /** Human-readable description of the error. */
  message?: string;
  /** Machine-readable cause, e.g. "NotFound", "AlreadyExists", "Conflict", "Expired". */
  reason?: string;
  /** The HTTP status code. */
  code?: number;
  /** More about the object the error is about. */
  details?: {
    /** The object's name. */
    name?: string;
    /** The object's API group. */
    group?: string;
    /** The object's kind (for some errors, the resource). */
    kind?: string;
    /** The object's UID, where it is known. */
    uid?: string;
    /** One entry per problem, e.g. each invalid field. */
    causes?: {
      /** Machine-readable, e.g. "FieldValueInvalid". */
      reason?: string;
      /** Human-readable. */
      message?: string;
      /** Path of the field in question, e.g. "spec.replicas". */
      field?: string;
    }[];
    /** How long the server asks the client to wait before retrying. */
    retryAfterSeconds?: number;
  };
}

/** What a watch event says happened. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One event of a watch stream: an object's new state, a bookmark (only metadata.resourceVersion), or an error. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | {
      /** What happened to the object. */
      type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
      /** Its state after the change (for DELETED, its last state); for BOOKMARK, only the resourceVersion. */
      object: T;
    }
  | {
      /** The watch failed; the stream ends. */
      type: "ERROR";
      /** Why, e.g. code 410 "Expired": the resourceVersion is too old. */
      object: Status;
    };
