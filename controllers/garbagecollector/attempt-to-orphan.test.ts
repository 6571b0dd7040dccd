import { describe, expect, test } from "bun:test";
import { FakeObjectApi } from "../../test/garbagecollector/fake-object-api.ts";
import { AttemptToOrphan } from "./attempt-to-orphan.ts";
import { GraphNode, type ObjectIdentity } from "./graph.ts";

function setup() {
  const api = new FakeObjectApi();
  const worker = new AttemptToOrphan({ api });
  const owner = api.put("v1", "ConfigMap", { namespace: "ns", name: "owner", uid: "uid-owner", deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: ["orphan"] });
  const ownerNode = new GraphNode(owner, [], false);
  const refToOwner = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "uid-owner" };
  const other = { apiVersion: "v1", kind: "ConfigMap", name: "other", uid: "uid-other" };
  const dependents: ObjectIdentity[] = ["a", "b"].map((name) => {
    const dependent = api.put("v1", "ConfigMap", { namespace: "ns", name, uid: `uid-${name}`, ownerReferences: [refToOwner, other] });
    ownerNode.addDependent(new GraphNode(dependent, [refToOwner, other], false));
    return dependent;
  });
  return { api, worker, owner, ownerNode, dependents, other };
}

describe("AttemptToOrphan", () => {
  test("detaches every dependent from the owner, keeping their other owners, then drops the orphan finalizer", async () => {
    const { api, worker, owner, ownerNode, dependents, other } = setup();
    await worker.reconcile(ownerNode);
    for (const dependent of dependents) expect(api.stored(dependent)?.ownerReferences).toEqual([other]);
    expect(api.stored(owner)?.finalizers).toEqual([]);
    expect(api.calls.at(-1)).toBe("remove-finalizer ConfigMap ns/owner orphan");
  });

  test("a failed dependent keeps the finalizer and fails the attempt, to be retried", async () => {
    const { api, worker, ownerNode } = setup();
    api.removeOwnerReferences = async () => {
      throw new Error("the server is on fire");
    };
    await expect(worker.reconcile(ownerNode)).rejects.toThrow("orphaning 2 of 2 dependents of v1/ConfigMap ns/owner (uid-owner) failed, e.g.: the server is on fire");
    expect(api.calls.some((call) => call.startsWith("remove-finalizer"))).toBe(false);
  });
});
