import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { ObservedChange } from "./observed-change.ts";
import { PodExcessMonitor } from "./pod-excess-monitor.ts";
import { SoakTally } from "./soak-tally.ts";

let revision = 0;

function replicaSet(replicas: number, receivedAt: number): ObservedChange {
  const object = { kind: "ReplicaSet", metadata: { name: "web", namespace: "ns", uid: "rs" }, spec: { replicas } } as KubeObject;
  return { resource: "replicasets", type: "upsert", object, revision: ++revision, receivedAt, created: false, inferred: false };
}

function pod(name: string, type: "create" | "delete", receivedAt: number): ObservedChange {
  const object: KubeObject = {
    kind: "Pod",
    metadata: { name, namespace: "ns", uid: name, ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "rs", controller: true }] },
  };
  return { resource: "pods", type: type === "create" ? "upsert" : "delete", object, revision: ++revision, receivedAt, created: type === "create", inferred: false };
}

function monitor(changes: ObservedChange[], windowMs = 30_000): { summary: PodExcessMonitor["summary"]; tally: SoakTally } {
  const tally = new SoakTally();
  const excess = new PodExcessMonitor(windowMs, tally);
  for (const change of changes) excess.observe(change);
  return { summary: excess.summary, tally };
}

describe("PodExcessMonitor", () => {
  test("Pods left over after a scale-down are lag, not overshoot", () => {
    const { summary } = monitor([replicaSet(2, 0), pod("a", "create", 10), pod("b", "create", 20), replicaSet(0, 1_000), pod("a", "delete", 3_000), pod("b", "delete", 3_100)]);
    expect(summary.overshoots).toBe(0);
    expect(summary.longestScaleDownLagMs).toBe(2_100);
  });

  test("a creation beyond spec.replicas opens an overshoot that ends when the count is back", () => {
    const { summary, tally } = monitor([replicaSet(1, 0), pod("a", "create", 10), pod("b", "create", 10_000), pod("c", "create", 10_100), pod("c", "delete", 11_000), pod("b", "delete", 12_000)]);
    expect(summary).toMatchObject({ overshoots: 1, maxExcess: 2, maxExcessDurationMs: 2_000, longestOvershootMs: 2_000 });
    expect(tally.violationTotal).toBe(0);
  });

  test("creations landing just after a scale-down were in flight: allowed", () => {
    const { summary } = monitor([replicaSet(3, 0), pod("a", "create", 10), replicaSet(1, 100), pod("b", "create", 200), pod("b", "delete", 500)]);
    expect(summary.overshoots).toBe(0);
    expect(summary.inFlightCreations).toBe(1);
  });

  test("an overshoot longer than the window is a violation", () => {
    const { tally } = monitor([replicaSet(0, 0), pod("a", "create", 10), pod("a", "delete", 5_000)], 1_000);
    expect(tally.violationCounts.get("pod-excess")).toBe(1);
  });
});
