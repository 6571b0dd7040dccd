// The garbage collector's dependency graph: one node per object UID, each linked to the nodes
// its ownerReferences name and to the nodes naming it. An owner referenced before any informer
// reported it gets a "virtual" node, built from the reference, until it is observed or proven absent.
import type { OwnerReference } from "../../pkg/kube/objects.ts";

/** Where an object lives and which incarnation it is: enough to GET, DELETE or PATCH it. */
export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  /** "" for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion && a.namespace === b.namespace;
}

/** True when `ref` names `identity` by every coordinate a reference carries (no namespace: references have none). */
export function referenceMatches(ref: OwnerReference, identity: ObjectIdentity): boolean {
  return ref.uid === identity.uid && ref.name === identity.name && ref.kind === identity.kind && ref.apiVersion === identity.apiVersion;
}

/** A copy: a virtual node's coordinates can change while a worker awaits. */
export function identityOf(node: ObjectIdentity): ObjectIdentity {
  return { apiVersion: node.apiVersion, kind: node.kind, namespace: node.namespace, name: node.name, uid: node.uid };
}

/** "v1/ConfigMap ns/name (uid)", "apps/v1/ReplicaSet name (uid)" for cluster-scoped ones. */
export function describeIdentity(identity: ObjectIdentity): string {
  const key = identity.namespace ? `${identity.namespace}/${identity.name}` : identity.name;
  return `${identity.apiVersion}/${identity.kind} ${key} (${identity.uid})`;
}

/**
 * A node is its own identity (fields inline, no extra object per node: the graph holds one node
 * per object of the cluster). Only the graph builder changes nodes; workers read them.
 */
export class GraphNode implements ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  readonly uid: string;
  /** The object's ownerReferences as last observed (shared with the informer's cache: never mutated). */
  owners: readonly OwnerReference[];
  /** Built from a reference, not observed by an informer yet. */
  virtual: boolean;
  /** The object has a deletionTimestamp; one way, like the deletion itself. */
  beingDeleted = false;
  /** Being deleted with the foregroundDeletion finalizer: waits for its blocking dependents. */
  deletingDependents = false;
  /** Being deleted with the orphan finalizer, as last observed: its dependents lose their reference to it before the finalizer comes off. */
  orphaningDependents = false;
  // Created on first use: most objects own nothing.
  private dependentSet: Set<GraphNode> | undefined;

  constructor(identity: ObjectIdentity, owners: readonly OwnerReference[], virtual: boolean) {
    this.apiVersion = identity.apiVersion;
    this.kind = identity.kind;
    this.namespace = identity.namespace;
    this.name = identity.name;
    this.uid = identity.uid;
    this.owners = owners;
    this.virtual = virtual;
  }

  /** Replaces a virtual node's guessed coordinates with observed (or alternative) ones; the UID stays. */
  setIdentity(identity: ObjectIdentity): void {
    this.apiVersion = identity.apiVersion;
    this.kind = identity.kind;
    this.namespace = identity.namespace;
    this.name = identity.name;
  }

  get dependents(): ReadonlySet<GraphNode> {
    return this.dependentSet ?? emptySet;
  }

  addDependent(dependent: GraphNode): void {
    (this.dependentSet ??= new Set()).add(dependent);
  }

  removeDependent(dependent: GraphNode): void {
    this.dependentSet?.delete(dependent);
    if (this.dependentSet?.size === 0) this.dependentSet = undefined;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion: a foreground deletion waits for them. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((dependent) =>
      dependent.owners.some((ref) => ref.uid === this.uid && ref.blockOwnerDeletion === true),
    );
  }

  /** Used as the workqueue's key in logs. */
  toString(): string {
    return describeIdentity(this);
  }
}

const emptySet: ReadonlySet<GraphNode> = new Set();

/** uid → node. Read by workers and the debug page, written only by the graph builder. */
export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  set(node: GraphNode): void {
    this.nodes.set(node.uid, node);
  }

  delete(uid: string): void {
    this.nodes.delete(uid);
  }

  values(): IterableIterator<GraphNode> {
    return this.nodes.values();
  }
}
