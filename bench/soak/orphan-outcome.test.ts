import { expect, test } from "bun:test";
import { networkGVR } from "../../controllers/network/network-resource.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { AuditEvent } from "../../test/support/audit-log.ts";
import { isOrphanRace } from "./orphan-outcome.ts";

const replicas = ["kube-loom-a", "kube-loom-b"];
const secret = { gvr: resources.secrets, name: "tree-1-secret", uid: "s", owners: ["root"] };

const garbageCollector = "kube-loom/v0.2.0 (linux/amd64; bun) kube-loom/v0.2.0/generic-garbage-collector";
const networkController = "kube-loom/v0.2.0 (linux/amd64; bun) kube-loom/v0.2.0/network-controller";

function write(user: string, verb: string, resource: string, name: string, atMicros: number, userAgent = garbageCollector): AuditEvent {
  return { verb, user, resource, namespace: "trees", name, code: 200, userAgent, receivedAtMicros: atMicros, completedAtMicros: atMicros + 1 };
}

const ownerDeleted = write("admin", "delete", "configmaps", "tree-1", 100);
const finalizerRemoved = write("kube-loom-b", "patch", "configmaps", "tree-1", 300);
const collected = write("kube-loom-b", "delete", "secrets", "tree-1-secret", 400);

test("collected after the orphan finalizer came off, never orphaned: the upstream race", () => {
  expect(isOrphanRace([ownerDeleted, finalizerRemoved, collected], replicas, "tree-1", secret)).toBe(true);
});

test("another controller writing the dependent meanwhile (a Network's finalizer and status) is no orphaning", () => {
  const network = { gvr: networkGVR, name: "tree-1-network", uid: "n", owners: ["root"] };
  const finalizerAdded = write("kube-loom-b", "update", "networks", "tree-1-network", 200, networkController);
  const statusWritten = { ...write("kube-loom-b", "update", "networks", "tree-1-network", 250, networkController), subresource: "status" };
  const collectedNetwork = write("kube-loom-b", "delete", "networks", "tree-1-network", 400);
  expect(isOrphanRace([ownerDeleted, finalizerAdded, statusWritten, finalizerRemoved, collectedNetwork], replicas, "tree-1", network)).toBe(true);
});

test("orphaned and still deleted, or deleted before the finalizer came off: not the race", () => {
  const orphaned = write("kube-loom-b", "patch", "secrets", "tree-1-secret", 200);
  expect(isOrphanRace([ownerDeleted, orphaned, finalizerRemoved, collected], replicas, "tree-1", secret)).toBe(false);
  const early = write("kube-loom-b", "delete", "secrets", "tree-1-secret", 200);
  expect(isOrphanRace([ownerDeleted, early, finalizerRemoved], replicas, "tree-1", secret)).toBe(false);
  expect(isOrphanRace([ownerDeleted, collected], replicas, "tree-1", secret)).toBe(false);
});
