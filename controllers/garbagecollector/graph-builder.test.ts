import { describe, expect, test } from "bun:test";
import { DroppedFromShare } from "../../pkg/informer/deltas.ts";
import type { KubeObject, ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";
import type { NamespaceOwnership, NamespaceVerdict } from "../../pkg/shardelection/namespace-ownership.ts";
import { AbsentOwnerCache } from "./absent-owner-cache.ts";
import { alternateOwnerIdentity, GraphBuilder, type NodeQueue } from "./graph-builder.ts";
import { GraphNode } from "./graph.ts";
import { followNamespaceTakeovers } from "./namespace-takeover.ts";

class RecordingQueue implements NodeQueue {
  readonly added: GraphNode[] = [];
  readonly rateLimited: GraphNode[] = [];
  add(node: GraphNode): void {
    this.added.push(node);
  }
  addRateLimited(node: GraphNode): void {
    this.rateLimited.push(node);
  }
  names(): string[] {
    return this.added.map((node) => node.name);
  }
}

function setup() {
  const attemptToDelete = new RecordingQueue();
  const attemptToOrphan = new RecordingQueue();
  const absentOwners = new AbsentOwnerCache();
  const reports: string[] = [];
  const builder = new GraphBuilder({
    attemptToDelete,
    attemptToOrphan,
    absentOwners,
    reportInvalidNamespaceOwnerRef: (dependent, message) => reports.push(`${dependent.namespace}/${dependent.name}: ${message}`),
  });
  const configMaps = builder.handlerFor("v1", "ConfigMap");
  return { builder, graph: builder.graph, attemptToDelete, attemptToOrphan, absentOwners, reports, configMaps };
}

function configMap(namespace: string, name: string, meta: Partial<ObjectMeta> = {}): KubeObject {
  // Metadata informers report PartialObjectMetadata, not the resource's kind.
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: { namespace, name, uid: `uid-${name}`, resourceVersion: "1", ...meta } };
}

function ownedBy(name: string, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: "v1", kind: "ConfigMap", name, uid: `uid-${name}`, ...extra };
}

describe("GraphBuilder", () => {
  test("an owner seen first gets the dependent; the edge goes both ways", () => {
    const { graph, configMaps, attemptToDelete } = setup();
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    const owner = graph.get("uid-owner") as GraphNode;
    const child = graph.get("uid-child") as GraphNode;
    expect(owner.kind).toBe("ConfigMap");
    expect([...owner.dependents]).toEqual([child]);
    expect(child.owners).toEqual([ownedBy("owner")]);
    expect(attemptToDelete.added).toEqual([]);
  });

  test("an owner not seen yet becomes a virtual node, queued to be checked, then observed", () => {
    const { graph, configMaps, attemptToDelete } = setup();
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    const owner = graph.get("uid-owner") as GraphNode;
    expect(owner.virtual).toBe(true);
    expect(owner.namespace).toBe("ns");
    expect(attemptToDelete.added).toEqual([owner]);
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    expect(graph.get("uid-owner")).toBe(owner);
    expect(owner.virtual).toBe(false);
  });

  const invalidNamespace = 'b/child: ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: uid-owner] does not exist in namespace "b" (the object with that UID is in namespace "a": a namespaced owner must be in its dependent\'s namespace)';

  test("a dependent naming an observed owner of another namespace is queued for a check and reported once", () => {
    const { configMaps, attemptToDelete, reports } = setup();
    configMaps.onAdd?.(configMap("a", "owner"), true);
    const child = configMap("b", "child", { ownerReferences: [ownedBy("owner")] });
    configMaps.onAdd?.(child, true);
    configMaps.onUpdate?.(child, configMap("b", "child", { resourceVersion: "2", labels: { x: "y" }, ownerReferences: [ownedBy("owner")] }));
    expect(attemptToDelete.names()).toEqual(["child"]);
    expect(reports).toEqual([invalidNamespace]);
  });

  test("a virtual owner observed in another namespace queues the dependents that guessed wrong, and reports them", () => {
    const { graph, configMaps, attemptToDelete, reports } = setup();
    configMaps.onAdd?.(configMap("b", "child", { ownerReferences: [ownedBy("owner")] }), true);
    configMaps.onAdd?.(configMap("a", "owner"), true);
    expect(attemptToDelete.names()).toEqual(["owner", "child"]);
    expect(graph.get("uid-owner")?.namespace).toBe("a");
    expect(reports).toEqual([invalidNamespace]);
  });

  test("a cluster-scoped dependent of an observed namespaced owner is reported too", () => {
    const { builder, configMaps, reports } = setup();
    configMaps.onAdd?.(configMap("a", "owner"), true);
    builder.handlerFor("rbac.authorization.k8s.io/v1", "ClusterRole").onAdd?.({ metadata: { name: "role", uid: "uid-role", ownerReferences: [ownedBy("owner")] } }, true);
    expect(reports).toEqual(['/role: ownerRef [v1/ConfigMap, namespace: , name: owner, uid: uid-owner] does not exist in namespace "" (the object with that UID is in namespace "a": a cluster-scoped object can only have cluster-scoped owners)']);
  });

  test("deleting an owner drops its node, records it absent and queues its dependents", () => {
    const { graph, configMaps, attemptToDelete, absentOwners } = setup();
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    configMaps.onAdd?.(configMap("ns", "a", { ownerReferences: [ownedBy("owner")] }), true);
    configMaps.onAdd?.(configMap("ns", "b", { ownerReferences: [ownedBy("owner")] }), true);
    configMaps.onDelete?.(configMap("ns", "owner"));
    expect(graph.get("uid-owner")).toBeUndefined();
    expect(attemptToDelete.names().sort()).toEqual(["a", "b"]);
    expect(absentOwners.has({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "owner", uid: "uid-owner" })).toBe(true);
  });

  test("an owner that only left a sharded cache (its namespace went to another member) is dropped but not recorded absent", () => {
    const { graph, configMaps, absentOwners } = setup();
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    configMaps.onDelete?.(new DroppedFromShare("ns/owner", configMap("ns", "owner")));
    expect(graph.get("uid-owner")).toBeUndefined();
    // Should this member hold the namespace again, the child's owner must be looked up, not taken for gone.
    expect(absentOwners.has({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "owner", uid: "uid-owner" })).toBe(false);
  });

  test("a deleted dependent leaves its owner's dependents, and wakes an owner deleting in the foreground", () => {
    const { graph, configMaps, attemptToDelete } = setup();
    configMaps.onAdd?.(configMap("ns", "owner", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] }), true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner", { blockOwnerDeletion: true })] }), true);
    const owner = graph.get("uid-owner") as GraphNode;
    expect(owner.deletingDependents).toBe(true);
    attemptToDelete.added.length = 0;
    configMaps.onDelete?.(configMap("ns", "child"));
    expect(owner.dependents.size).toBe(0);
    expect(attemptToDelete.added).toEqual([owner]);
  });

  test("a foreground deletion starting marks the node and queues it with its dependents", () => {
    const { graph, configMaps, attemptToDelete } = setup();
    const owner = configMap("ns", "owner");
    configMaps.onAdd?.(owner, true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    const deleting = configMap("ns", "owner", { resourceVersion: "2", deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    configMaps.onUpdate?.(owner, deleting);
    expect(graph.get("uid-owner")?.deletingDependents).toBe(true);
    expect(graph.get("uid-owner")?.beingDeleted).toBe(true);
    expect(attemptToDelete.names()).toEqual(["child", "owner"]);
  });

  test("an orphaning deletion queues the owner for orphaning, once", () => {
    const { configMaps, attemptToOrphan } = setup();
    const owner = configMap("ns", "owner");
    configMaps.onAdd?.(owner, true);
    const orphaning = configMap("ns", "owner", { resourceVersion: "2", deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["orphan"] });
    configMaps.onUpdate?.(owner, orphaning);
    configMaps.onUpdate?.(orphaning, { ...orphaning, metadata: { ...orphaning.metadata, resourceVersion: "3" } });
    expect(attemptToOrphan.names()).toEqual(["owner"]);
  });

  test("an object first seen while orphaning (e.g. after a restart) is queued for orphaning", () => {
    const { configMaps, attemptToOrphan } = setup();
    configMaps.onAdd?.(configMap("ns", "owner", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["orphan"] }), true);
    expect(attemptToOrphan.names()).toEqual(["owner"]);
  });

  test("removing a blocking reference, or unsetting blockOwnerDeletion, queues the owner", () => {
    const { configMaps, attemptToDelete } = setup();
    configMaps.onAdd?.(configMap("ns", "o1"), true);
    configMaps.onAdd?.(configMap("ns", "o2"), true);
    const child = configMap("ns", "child", {
      ownerReferences: [ownedBy("o1", { blockOwnerDeletion: true }), ownedBy("o2", { blockOwnerDeletion: true })],
    });
    configMaps.onAdd?.(child, true);
    configMaps.onUpdate?.(child, configMap("ns", "child", { resourceVersion: "2", ownerReferences: [ownedBy("o2", { blockOwnerDeletion: false })] }));
    expect(attemptToDelete.names().sort()).toEqual(["o1", "o2"]);
  });

  test("changed references move the dependent between owners", () => {
    const { graph, configMaps } = setup();
    configMaps.onAdd?.(configMap("ns", "o1"), true);
    configMaps.onAdd?.(configMap("ns", "o2"), true);
    const child = configMap("ns", "child", { ownerReferences: [ownedBy("o1")] });
    configMaps.onAdd?.(child, true);
    configMaps.onUpdate?.(child, configMap("ns", "child", { resourceVersion: "2", ownerReferences: [ownedBy("o2")] }));
    expect(graph.get("uid-o1")?.dependents.size).toBe(0);
    expect(graph.get("uid-o2")?.dependents.size).toBe(1);
  });

  test("an update carrying another UID (deleted and recreated between observations) is a delete plus an add", () => {
    const { graph, configMaps, attemptToDelete } = setup();
    const first = configMap("ns", "owner");
    configMaps.onAdd?.(first, true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    configMaps.onUpdate?.(first, configMap("ns", "owner", { uid: "uid-owner-2", resourceVersion: "9" }));
    expect(graph.get("uid-owner")).toBeUndefined();
    expect(graph.get("uid-owner-2")?.name).toBe("owner");
    expect(attemptToDelete.names()).toEqual(["child"]);
  });

  test("a resync (same resourceVersion) changes nothing", () => {
    const { configMaps, attemptToOrphan } = setup();
    const orphaning = configMap("ns", "owner", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["orphan"] });
    configMaps.onAdd?.(orphaning, true);
    configMaps.onUpdate?.(orphaning, orphaning);
    expect(attemptToOrphan.names()).toEqual(["owner"]);
  });

  test("a virtual owner proven absent is dropped, recorded absent, and its dependents queued", () => {
    const { builder, graph, configMaps, attemptToDelete, absentOwners } = setup();
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("gone")] }), true);
    attemptToDelete.added.length = 0;
    const gone = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "gone", uid: "uid-gone" };
    builder.observeVirtualDeletion(gone);
    expect(graph.get("uid-gone")).toBeUndefined();
    expect(attemptToDelete.names()).toEqual(["child"]);
    expect(absentOwners.has(gone)).toBe(true);
  });

  test("an observed owner a worker found gone before its informer did is dropped and recorded absent", () => {
    const { builder, graph, configMaps, absentOwners } = setup();
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    const owner = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "owner", uid: "uid-owner" };
    builder.observeVirtualDeletion(owner);
    expect(graph.get("uid-owner")).toBeUndefined();
    expect(absentOwners.has(owner)).toBe(true);
  });

  test("a virtual owner named differently by other dependents switches to the other name when one is proven absent", () => {
    const { builder, graph, configMaps, attemptToDelete, absentOwners } = setup();
    configMaps.onAdd?.(configMap("ns", "a", { ownerReferences: [ownedBy("x", { uid: "uid-shared" })] }), true);
    configMaps.onAdd?.(configMap("ns", "b", { ownerReferences: [ownedBy("y", { uid: "uid-shared" })] }), true);
    attemptToDelete.added.length = 0;
    const absent = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "x", uid: "uid-shared" };
    builder.observeVirtualDeletion(absent);
    const node = graph.get("uid-shared") as GraphNode;
    expect(node.name).toBe("y");
    expect(attemptToDelete.names()).toEqual(["a"]);
    expect(attemptToDelete.rateLimited).toEqual([node]);
    expect(absentOwners.has(absent)).toBe(true);
  });

  test("an observed node is not dropped by a virtual deletion under other coordinates", () => {
    const { builder, graph, configMaps, attemptToDelete } = setup();
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("wrong-name", { uid: "uid-owner" })] }), true);
    attemptToDelete.added.length = 0;
    builder.observeVirtualDeletion({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "wrong-name", uid: "uid-owner" });
    expect(graph.get("uid-owner")?.virtual).toBe(false);
    expect(attemptToDelete.names()).toEqual(["child"]);
  });

  test("objects without uid or name are ignored", () => {
    const { graph, configMaps } = setup();
    configMaps.onAdd?.({ metadata: { name: "x" } }, true);
    expect(graph.size).toBe(0);
  });
});

describe("alternateOwnerIdentity", () => {
  const dependent = (namespace: string, refs: OwnerReference[]) => new GraphNode({ apiVersion: "v1", kind: "ConfigMap", namespace, name: "d", uid: `d-${namespace}` }, refs, false);
  const absent = { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "b", uid: "u" };

  test("walks the alternatives in order, wrapping around", () => {
    const deps = [dependent("ns", [ownedBy("a", { uid: "u" }), ownedBy("c", { uid: "u" }), ownedBy("b", { uid: "u" })])];
    expect(alternateOwnerIdentity(deps, absent)?.name).toBe("c");
    expect(alternateOwnerIdentity(deps, { ...absent, name: "c" })?.name).toBe("a");
  });

  test("none when every dependent agrees with the absent identity", () => {
    expect(alternateOwnerIdentity([dependent("ns", [ownedBy("b", { uid: "u" })])], absent)).toBeUndefined();
  });
});

/** A shard ring member's verdicts, set by the test; every change is announced. */
class SettableOwnership implements NamespaceOwnership {
  private readonly verdicts = new Map<string, NamespaceVerdict>();
  private readonly listeners = new Set<() => void>();
  verdict(namespace: string): NamespaceVerdict {
    return this.verdicts.get(namespace) ?? "elsewhere";
  }
  begin(): undefined {
    return undefined;
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(namespace: string, verdict: NamespaceVerdict): void {
    this.verdicts.set(namespace, verdict);
    for (const listener of this.listeners) listener();
  }
}

describe("followNamespaceTakeovers", () => {
  test("an owner whose orphan deletion started while another member held its namespace has its dependents orphaned by the member that takes it over", () => {
    const { graph, configMaps, attemptToDelete, attemptToOrphan } = setup();
    const ownership = new SettableOwnership();
    configMaps.onAdd?.(configMap("ns", "owner"), true);
    configMaps.onAdd?.(configMap("ns", "child", { ownerReferences: [ownedBy("owner")] }), true);
    configMaps.onUpdate?.(configMap("ns", "owner"), configMap("ns", "owner", { resourceVersion: "2", deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["orphan"] }));
    // The graph queued it then, but the work was dropped: the namespace was not this member's.
    attemptToOrphan.added.length = 0;
    attemptToDelete.added.length = 0;
    followNamespaceTakeovers(ownership, graph, { attemptToDelete, attemptToOrphan });
    ownership.set("ns", "act");
    expect({ orphan: attemptToOrphan.names(), delete: attemptToDelete.names() }).toEqual({ orphan: ["owner"], delete: ["child"] });
  });
});
