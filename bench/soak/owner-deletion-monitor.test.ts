import { expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { ObservedChange } from "./observed-change.ts";
import { OwnerDeletionMonitor } from "./owner-deletion-monitor.ts";
import { SoakTally } from "./soak-tally.ts";

// Every case here is decided from the watch alone; the client is only for the GET of undecided ones.
const noClient = {} as KubeClient;

const owner: KubeObject = { kind: "ConfigMap", metadata: { name: "root", namespace: "ns", uid: "root-uid" } };
const dependent: KubeObject = {
  kind: "ConfigMap",
  metadata: { name: "child", namespace: "ns", uid: "child-uid", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "root", uid: "root-uid" }] },
};

function deletion(object: KubeObject, revision: number, inferred = false): ObservedChange {
  return { resource: "configmaps", type: "delete", object, revision, receivedAt: 0, created: false, inferred };
}

test("a dependent deleted after its owner's deletion started is fine", () => {
  const tally = new SoakTally();
  const monitor = new OwnerDeletionMonitor(noClient, tally);
  monitor.observe({ ...deletion(owner, 10), type: "upsert", object: { ...owner, metadata: { ...owner.metadata, deletionTimestamp: "2026-11-22T00:00:00Z" } } });
  monitor.observe(deletion(dependent, 12));
  expect(tally.violationTotal).toBe(0);
  expect(monitor.checked).toBe(1);
});

test("a dependent deleted at a revision before its owner's deletion started is a violation", () => {
  const tally = new SoakTally();
  const monitor = new OwnerDeletionMonitor(noClient, tally);
  monitor.observe(deletion(owner, 15));
  monitor.observe(deletion(dependent, 12));
  expect(tally.violationCounts.get("deleted-with-live-owner")).toBe(1);
});

test("when a relist only inferred one of the deletions, the order is undecidable, not a violation", () => {
  const tally = new SoakTally();
  const monitor = new OwnerDeletionMonitor(noClient, tally);
  monitor.observe(deletion(owner, 15, true));
  monitor.observe(deletion(dependent, 12));
  expect(tally.violationTotal).toBe(0);
  expect(monitor.unverifiable).toBe(1);
});
