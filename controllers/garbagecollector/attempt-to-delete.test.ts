import { describe, expect, test } from "bun:test";
import pino from "pino";
import { TerminalError } from "../../pkg/controller/reconciler.ts";
import { ApiError } from "../../pkg/kube/errors.ts";
import type { ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";
import { FakeObjectApi } from "../../test/garbagecollector/fake-object-api.ts";
import { AbsentOwnerCache } from "./absent-owner-cache.ts";
import { AttemptToDelete, type ClassifiedReference, decide, NotObservedYetError } from "./attempt-to-delete.ts";
import { GraphBuilder, type NodeQueue } from "./graph-builder.ts";
import { GraphNode, type ObjectIdentity } from "./graph.ts";

const ref = (name: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: "v1", kind: "ConfigMap", name, uid: `uid-${name}`, ...extra });

describe("decide", () => {
  const none = new Set<GraphNode>();
  const classified = (...pairs: [string, ClassifiedReference["verdict"]][]) => pairs.map(([name, verdict]) => ({ ref: ref(name), verdict, reason: "" }));

  test("a solid owner keeps the object, dropping only the dangling and waiting references", () => {
    expect(decide({}, none, classified(["a", "solid"]))).toEqual({ action: "keep" });
    expect(decide({}, none, classified(["a", "solid"], ["b", "dangling"], ["c", "waiting"]))).toEqual({
      action: "remove-references",
      ownerUids: ["uid-b", "uid-c"],
    });
  });

  test("without solid owners the object goes, in the background unless its finalizers say otherwise", () => {
    expect(decide({}, none, classified(["a", "dangling"]))).toEqual({ action: "delete", policy: "Background", unblockFirst: false });
    expect(decide({ finalizers: ["orphan"] }, none, classified(["a", "dangling"]))).toMatchObject({ policy: "Orphan" });
    expect(decide({ finalizers: ["foregroundDeletion"] }, none, classified(["a", "dangling"]))).toMatchObject({ policy: "Foreground" });
  });

  test("an owner waiting in the foreground makes an object with dependents go in the foreground too", () => {
    const dependent = new GraphNode({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "d", uid: "d" }, [], false);
    expect(decide({}, new Set([dependent]), classified(["a", "waiting"]))).toEqual({ action: "delete", policy: "Foreground", unblockFirst: false });
    expect(decide({}, none, classified(["a", "waiting"]))).toMatchObject({ policy: "Background" });
    dependent.deletingDependents = true;
    expect(decide({}, new Set([dependent]), classified(["a", "waiting"]))).toMatchObject({ unblockFirst: true });
  });
});

class Queue implements NodeQueue {
  readonly added: GraphNode[] = [];
  add(node: GraphNode): void {
    this.added.push(node);
  }
  addRateLimited(node: GraphNode): void {
    this.added.push(node);
  }
}

interface LogLine {
  msg: string;
  [field: string]: unknown;
}

/** A graph fed from the fake API's objects, and the worker over both. */
function setup() {
  const api = new FakeObjectApi();
  const absentOwners = new AbsentOwnerCache();
  const queue = new Queue();
  const reports: string[] = [];
  const builder = new GraphBuilder({
    attemptToDelete: queue,
    attemptToOrphan: new Queue(),
    absentOwners,
    reportInvalidNamespaceOwnerRef: (dependent, message) => reports.push(`${dependent.name}: ${message}`),
  });
  const logs: LogLine[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const worker = new AttemptToDelete({
    api,
    graph: builder.graph,
    absentOwners,
    observeVirtualDeletion: (identity) => builder.observeVirtualDeletion(identity),
    enqueue: (node) => queue.add(node),
    logger,
  });
  const create = (namespace: string, name: string, meta: Partial<ObjectMeta> = {}, kind = "ConfigMap"): GraphNode => {
    const full = { namespace: namespace || undefined, name, uid: `uid-${name}`, ...meta };
    api.put("v1", kind, full);
    builder.observe({ type: "add", object: { metadata: api.cached({ apiVersion: "v1", kind, namespace, name, uid: full.uid })?.metadata ?? {} }, apiVersion: "v1", kind });
    return builder.graph.get(full.uid) as GraphNode;
  };
  const remove = (node: GraphNode) => builder.observe({ type: "delete", object: { metadata: { namespace: node.namespace, name: node.name, uid: node.uid } }, apiVersion: node.apiVersion, kind: node.kind });
  const reconcile = (node: GraphNode) => worker.reconcile(node);
  /** Reports the object's stored state to the graph, as its informer would. */
  const observeStored = (node: GraphNode, oldMeta: ObjectMeta) => {
    const meta = api.stored(identity(node)) ?? {};
    builder.observe({ type: "update", object: { metadata: meta }, oldObject: { metadata: oldMeta }, apiVersion: node.apiVersion, kind: node.kind });
  };
  const deletes = () => api.calls.filter((call) => call.startsWith("delete"));
  return { api, builder, graph: builder.graph, queue, worker, reports, logs, create, remove, reconcile, observeStored, deletes };
}

const identity = (node: GraphNode): ObjectIdentity => ({ apiVersion: node.apiVersion, kind: node.kind, namespace: node.namespace, name: node.name, uid: node.uid });

describe("AttemptToDelete", () => {
  test("an object whose only owner is gone is deleted with UID and resourceVersion preconditions, after one owner GET", async () => {
    const { api, create, reconcile } = setup();
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    await reconcile(child);
    expect(api.calls).toEqual(["get ConfigMap ns/owner", "delete ConfigMap ns/child Background rv=101"]);
  });

  test("an owner recreated under the same name (another UID) is absent", async () => {
    const { api, create, reconcile } = setup();
    api.put("v1", "ConfigMap", { namespace: "ns", name: "owner", uid: "uid-owner-new" });
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    await reconcile(child);
    expect(api.stored(identity(child))).toBeUndefined();
  });

  test("owners proven absent are remembered: the next dependents delete without asking again", async () => {
    const { api, create, reconcile } = setup();
    const a = create("ns", "a", { ownerReferences: [ref("owner")] });
    const b = create("ns", "b", { ownerReferences: [ref("owner")] });
    await reconcile(a);
    await reconcile(b);
    expect(api.calls.filter((call) => call.startsWith("get"))).toEqual(["get ConfigMap ns/owner"]);
  });

  test("workers asking about the same owner at once share one GET", async () => {
    const { api, create, reconcile } = setup();
    const children = ["a", "b", "c"].map((name) => create("ns", name, { ownerReferences: [ref("owner")] }));
    await Promise.all(children.map(reconcile));
    expect(api.calls.filter((call) => call.startsWith("get"))).toEqual(["get ConfigMap ns/owner"]);
    expect(api.calls.filter((call) => call.startsWith("delete"))).toHaveLength(3);
  });

  test("a live owner (read live before anything is removed) keeps the object; another, absent owner's reference is removed", async () => {
    const { api, create, reconcile } = setup();
    create("ns", "alive");
    const child = create("ns", "child", { ownerReferences: [ref("alive"), ref("gone")] });
    await reconcile(child);
    expect(api.calls).toEqual(["get ConfigMap ns/gone", "get ConfigMap ns/alive", "remove-refs ConfigMap ns/child uid-gone"]);
    expect(api.stored(identity(child))?.ownerReferences).toEqual([ref("alive")]);
  });

  test("before removing references, owners only the graph vouches for are read live: one deleted meanwhile leaves no solid owner, and the object goes as kube-controller-manager decides (differential seed gc 1078)", async () => {
    const { api, create, reconcile } = setup();
    const alive = create("ns", "alive");
    create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const child = create("ns", "child", { ownerReferences: [ref("alive", { blockOwnerDeletion: true }), ref("top")] });
    // Deleted on the API server; the graph has not heard of it yet.
    await api.delete(identity(alive), "Background");
    await reconcile(child);
    expect(api.calls.filter((call) => !call.startsWith("get"))).toEqual(["delete ConfigMap ns/alive Background", "delete ConfigMap ns/child Background rv=103"]);
    expect(api.stored(identity(child))).toBeUndefined();
  });

  test("an owner in another namespace is absent from the dependent's namespace: the dependent is deleted, as kube-controller-manager does", async () => {
    const { api, create, reconcile, reports } = setup();
    const owner = create("a", "owner");
    const child = create("b", "child", { ownerReferences: [ref("owner")] });
    await reconcile(child);
    expect(api.calls).toEqual(["get ConfigMap b/owner", "delete ConfigMap b/child Background rv=102"]);
    expect(api.stored(identity(owner))).toBeDefined();
    // The Warning comes from the graph, once, when it links the dependent to the observed owner: never per attempt.
    await reconcile(child);
    expect(reports).toEqual([
      'child: ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: uid-owner] does not exist in namespace "b" (the object with that UID is in namespace "a": a namespaced owner must be in its dependent\'s namespace)',
    ]);
  });

  test("a cluster-scoped object with a namespaced owner is kept and not retried, and so is the owner guessed outside any namespace", async () => {
    const { api, graph, create, reconcile } = setup();
    const node = create("", "pv", { ownerReferences: [ref("owner")] }, "PersistentVolume");
    await expect(reconcile(node)).rejects.toBeInstanceOf(TerminalError);
    await expect(reconcile(graph.get("uid-owner") as GraphNode)).rejects.toBeInstanceOf(TerminalError);
    expect(api.calls).toEqual([]);
    expect(graph.get("uid-owner")?.virtual).toBe(true);
    expect(api.stored(identity(node))).toBeDefined();
  });

  test("a cluster-scoped owner may own objects in any namespace", async () => {
    const { api, create, reconcile } = setup();
    create("", "node-1", {}, "Node");
    const child = create("ns", "child", { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "node-1", uid: "uid-node-1" }] });
    await reconcile(child);
    expect(api.calls).toEqual([]);
  });

  test("an owner deleting in the foreground: a dependent with dependents goes in the foreground, a leaf in the background", async () => {
    const { api, create, reconcile } = setup();
    create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const middle = create("ns", "middle", { ownerReferences: [ref("top", { blockOwnerDeletion: true })] });
    const leaf = create("ns", "leaf", { ownerReferences: [ref("middle", { blockOwnerDeletion: true })] });
    await reconcile(middle);
    expect(api.calls).toEqual(["get ConfigMap ns/top", "delete ConfigMap ns/middle Foreground rv=102"]);
    const other = create("ns", "other-leaf", { ownerReferences: [ref("top", { blockOwnerDeletion: true })] });
    await reconcile(other);
    expect(api.calls.at(-1)).toBe("delete ConfigMap ns/other-leaf Background rv=105");
    expect(leaf.owners).toHaveLength(1);
  });

  test("a dependent itself deleting in the foreground below: the object clears its own blockOwnerDeletion first, then its DELETE at the decided version fails, as kube-controller-manager 1.34+'s, and it is decided again; an owner gone by then makes it a background deletion (differential seed gc 7007)", async () => {
    const { api, graph, create, remove, reconcile, observeStored } = setup();
    const top = create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const middle = create("ns", "middle", { ownerReferences: [ref("top", { blockOwnerDeletion: true })] });
    // Held: once middle is deleting in the foreground, below would keep it so forever.
    create("ns", "below", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["example.com/hold", "foregroundDeletion"], ownerReferences: [ref("middle", { blockOwnerDeletion: true })] });
    const decided = api.stored(identity(middle)) ?? {};
    await expect(reconcile(middle)).rejects.toThrow("precondition failed");
    expect(api.calls).toEqual(["get ConfigMap ns/top", "unblock ConfigMap ns/middle", "delete ConfigMap ns/middle Foreground rv=102", "get ConfigMap ns/middle"]);
    expect(api.stored(identity(middle))).toMatchObject({ ownerReferences: [ref("top", { blockOwnerDeletion: false })] });
    expect(api.stored(identity(middle))?.deletionTimestamp).toBeUndefined();
    observeStored(middle, decided);
    // Meanwhile top, which middle no longer blocks, finishes.
    await api.removeFinalizer(identity(top), "foregroundDeletion");
    await api.delete(identity(top), "Background");
    remove(top);
    await reconcile(middle);
    expect(api.calls.at(-1)).toBe("delete ConfigMap ns/middle Background rv=104");
    expect(api.stored(identity(middle))).toBeUndefined();
    expect(graph.get("uid-below")?.beingDeleted).toBe(true);
  });

  test("clearing a blockOwnerDeletion that no reference sets changes nothing: the object is deleted in the foreground on that attempt", async () => {
    const { api, create, reconcile } = setup();
    create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const middle = create("ns", "middle", { ownerReferences: [ref("top")] });
    create("ns", "below", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"], ownerReferences: [ref("middle", { blockOwnerDeletion: true })] });
    await reconcile(middle);
    expect(api.calls).toEqual(["get ConfigMap ns/top", "unblock ConfigMap ns/middle", "delete ConfigMap ns/middle Foreground rv=102"]);
  });

  test("unblocking shows the object gained an owner since the decision: its DELETE at the decided version fails, no other is sent, the decision is made again", async () => {
    const { api, create, reconcile } = setup();
    create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    create("ns", "alive");
    const middle = create("ns", "middle", { ownerReferences: [ref("top", { blockOwnerDeletion: true })] });
    create("ns", "below", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"], ownerReferences: [ref("middle", { blockOwnerDeletion: true })] });
    const unblock = api.unblockOwnerReferences.bind(api);
    api.unblockOwnerReferences = async (target, owners) => {
      // Another writer adds a live owner between the decision and the patch.
      api.put("v1", "ConfigMap", { ...api.stored(target), ownerReferences: [ref("top", { blockOwnerDeletion: true }), ref("alive")] });
      return unblock(target, owners);
    };
    await expect(reconcile(middle)).rejects.toThrow("precondition failed");
    expect(api.calls.filter((call) => call.startsWith("delete"))).toEqual(["delete ConfigMap ns/middle Foreground rv=103"]);
    expect(api.stored(identity(middle))?.deletionTimestamp).toBeUndefined();
  });

  test("one DELETE per decision: attempts before the informer reports the deletion send no other", async () => {
    const { api, create, reconcile, observeStored, deletes } = setup();
    create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const middle = create("ns", "middle", { ownerReferences: [ref("top", { blockOwnerDeletion: true })] });
    create("ns", "leaf", { ownerReferences: [ref("middle", { blockOwnerDeletion: true })] });
    const before = api.stored(identity(middle)) ?? {};
    await reconcile(middle);
    expect(deletes()).toEqual(["delete ConfigMap ns/middle Foreground rv=102"]);
    // The informer has not reported the deletion: its copy is the state just deleted.
    api.staleCache.set("ConfigMap ns/middle", { metadata: before });
    await reconcile(middle);
    // It has (the cache shows the deletion) but the graph has not taken it in yet.
    api.staleCache.clear();
    await reconcile(middle);
    expect(deletes()).toHaveLength(1);
    observeStored(middle, before);
    expect(middle.deletingDependents).toBe(true);
  });

  test("a conflicting delete of an object meanwhile being deleted is not sent again", async () => {
    const { api, create, reconcile, deletes } = setup();
    const child = create("ns", "child", { finalizers: ["example.com/hold"], ownerReferences: [ref("owner")] });
    const before = api.cached(identity(child));
    await api.delete(identity(child), "Background");
    api.staleCache.set("ConfigMap ns/child", before ?? {});
    await reconcile(child);
    expect(deletes()).toEqual(["delete ConfigMap ns/child Background", "delete ConfigMap ns/child Background rv=101"]);
  });

  test("the log says what was decided and why", async () => {
    const { api, create, reconcile, logs } = setup();
    create("ns", "top", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const middle = create("ns", "middle", { ownerReferences: [ref("top", { blockOwnerDeletion: true })] });
    create("ns", "leaf", { ownerReferences: [ref("middle", { blockOwnerDeletion: true })] });
    api.put("v1", "ConfigMap", { namespace: "ns", name: "recreated", uid: "uid-recreated-2" });
    const orphan = create("ns", "orphan", { ownerReferences: [ref("gone"), ref("recreated")] });
    await reconcile(middle);
    await reconcile(orphan);
    expect(logs.map((line) => [line.msg, line.propagationPolicy, line.owners])).toEqual([
      ["deleted object whose owners are being deleted in the foreground", "Foreground", ["v1/ConfigMap top (uid-top): being deleted in the foreground"]],
      [
        "deleted object whose owners are absent",
        "Background",
        ["v1/ConfigMap gone (uid-gone): not found", "v1/ConfigMap recreated (uid-recreated): another object (uid-recreated-2) has its name"],
      ],
    ]);
  });

  test("an owner deleting in the foreground drops its finalizer once nothing blocks it, and pushes what still does", async () => {
    const { api, create, remove, reconcile, queue } = setup();
    const owner = create("ns", "owner", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    const child = create("ns", "child", { ownerReferences: [ref("owner", { blockOwnerDeletion: true })] });
    queue.added.length = 0;
    await reconcile(owner);
    expect(queue.added).toEqual([child]);
    expect(api.calls).toEqual([]);
    remove(child);
    await reconcile(owner);
    expect(api.calls).toEqual(["remove-finalizer ConfigMap ns/owner foregroundDeletion"]);
  });

  test("a conflicting delete is sent again with the UID precondition alone when the ownerReferences did not change, so unrelated updates cannot starve it (kube-controller-manager 1.34+)", async () => {
    const { api, create, reconcile } = setup();
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    // The informer has not seen an unrelated update yet.
    api.staleCache.set("ConfigMap ns/child", api.cached(identity(child)) ?? {});
    api.put("v1", "ConfigMap", { ...api.stored(identity(child)), labels: { unrelated: "change" } });
    const get = api.get.bind(api);
    api.get = async (target) => {
      const found = await get(target);
      // Another unrelated update lands right after the read: a retry at the version read would conflict again.
      if (target.name === "child") api.put("v1", "ConfigMap", { ...api.stored(identity(child)), labels: { unrelated: "again" } });
      return found;
    };
    await reconcile(child);
    expect(api.calls).toEqual(["get ConfigMap ns/owner", "delete ConfigMap ns/child Background rv=101", "get ConfigMap ns/child", "delete ConfigMap ns/child Background"]);
    expect(api.stored(identity(child))).toBeUndefined();
  });

  test("after a conflict, references whose blockOwnerDeletion went from unset to false have changed (upstream compares them as stored): no second DELETE, the object is decided again", async () => {
    const { api, create, reconcile, deletes } = setup();
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    // The informer has not seen the update that wrote the flag yet.
    api.staleCache.set("ConfigMap ns/child", api.cached(identity(child)) ?? {});
    api.put("v1", "ConfigMap", { ...api.stored(identity(child)), ownerReferences: [ref("owner", { blockOwnerDeletion: false })] });
    await expect(reconcile(child)).rejects.toThrow("precondition failed");
    expect(deletes()).toEqual(["delete ConfigMap ns/child Background rv=101"]);
    expect(api.stored(identity(child))).toBeDefined();
  });

  test("a DELETE answered 404 drops the object from the graph at once, queueing its dependents, without waiting for its informer (kube-controller-manager 1.36+)", async () => {
    const { api, graph, create, reconcile, queue, deletes } = setup();
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    const grandchild = create("ns", "grandchild", { ownerReferences: [ref("child")] });
    // Deleted by someone else; the informer still has the old copy.
    const before = api.cached(identity(child));
    await api.delete(identity(child), "Background");
    api.staleCache.set("ConfigMap ns/child", before ?? {});
    queue.added.length = 0;
    await reconcile(child);
    expect(deletes()).toEqual(["delete ConfigMap ns/child Background", "delete ConfigMap ns/child Background rv=101"]);
    expect(graph.get("uid-child")).toBeUndefined();
    expect(queue.added).toEqual([grandchild]);
  });

  test("a conflicting delete of an object gone by the time it is read again drops it from the graph", async () => {
    const { api, graph, create, reconcile } = setup();
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    const realDelete = api.delete.bind(api);
    api.delete = async (target) => {
      await realDelete(target, "Background");
      throw new ApiError(409, "Conflict", "precondition failed", "DELETE", target.name);
    };
    await reconcile(child);
    expect(api.calls.slice(-1)).toEqual(["get ConfigMap ns/child"]);
    expect(graph.get("uid-child")).toBeUndefined();
  });

  test("a virtual node whose DELETE is answered 404 is dropped and not retried", async () => {
    const { api, graph, create, reconcile } = setup();
    api.put("v1", "ConfigMap", { namespace: "ns", name: "owner", uid: "uid-owner", ownerReferences: [ref("gone")] });
    create("ns", "child", { ownerReferences: [ref("owner")] });
    const realDelete = api.delete.bind(api);
    api.delete = async (target, policy, resourceVersion) => {
      await realDelete(target, "Background");
      return realDelete(target, policy, resourceVersion);
    };
    await reconcile(graph.get("uid-owner") as GraphNode);
    expect(graph.get("uid-owner")).toBeUndefined();
  });

  test("a stale cached copy makes the delete conflict; the worker retries instead of deleting what changed", async () => {
    const { api, create, reconcile } = setup();
    const child = create("ns", "child", { ownerReferences: [ref("owner")] });
    const stale = api.cached(identity(child));
    create("ns", "owner-2");
    api.put("v1", "ConfigMap", { namespace: "ns", name: "child", uid: "uid-child", ownerReferences: [ref("owner"), ref("owner-2")] });
    api.staleCache.set("ConfigMap ns/child", stale ?? {});
    await expect(reconcile(child)).rejects.toThrow("precondition failed");
    expect(api.stored(identity(child))).toBeDefined();
  });

  test("a virtual owner the API server does not have is dropped from the graph", async () => {
    const { api, graph, create, reconcile, queue } = setup();
    create("ns", "child", { ownerReferences: [ref("gone")] });
    const virtual = graph.get("uid-gone") as GraphNode;
    queue.added.length = 0;
    await reconcile(virtual);
    expect(api.calls).toEqual(["get ConfigMap ns/gone"]);
    expect(graph.get("uid-gone")).toBeUndefined();
    expect(queue.added.map((n) => n.name)).toEqual(["child"]);
  });

  test("an owner proven absent through its virtual node costs one lookup for all its dependents", async () => {
    const { api, graph, create, reconcile, queue } = setup();
    const dependents = Array.from({ length: 1000 }, (_, i) => create("ns", `dependent-${i}`, { ownerReferences: [ref("gone")] }));
    await reconcile(graph.get("uid-gone") as GraphNode);
    expect(queue.added.filter((node) => node.name.startsWith("dependent-"))).toHaveLength(1000);
    for (const dependent of dependents) await reconcile(dependent);
    expect(api.calls.filter((call) => call === "get ConfigMap ns/gone")).toHaveLength(1);
    expect(api.calls.filter((call) => call.startsWith("delete"))).toHaveLength(1000);
  });

  test("a virtual owner that exists is checked again until an informer reports it", async () => {
    const { api, graph, create, reconcile } = setup();
    api.put("v1", "ConfigMap", { namespace: "ns", name: "owner", uid: "uid-owner" });
    create("ns", "child", { ownerReferences: [ref("owner")] });
    await expect(reconcile(graph.get("uid-owner") as GraphNode)).rejects.toBeInstanceOf(NotObservedYetError);
  });

  test("an object being deleted (not in the foreground) is left to finish", async () => {
    const { api, create, reconcile } = setup();
    const child = create("ns", "child", { deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["x"], ownerReferences: [ref("owner")] });
    await reconcile(child);
    expect(api.calls).toEqual([]);
  });

  test("an unknown owner kind is an error to retry, not a reason to delete", async () => {
    const { api, create, reconcile } = setup();
    const child = create("ns", "child", { ownerReferences: [{ apiVersion: "example.com/v1", kind: "Gadget", name: "g", uid: "uid-g" }] });
    await expect(reconcile(child)).rejects.toThrow("unknown kind Gadget");
    expect(api.stored(identity(child))).toBeDefined();
  });
});
