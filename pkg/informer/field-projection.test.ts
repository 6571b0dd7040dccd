import { describe, expect, test } from "bun:test";
import { noteBuiltFrom } from "../kube/field-tree.ts";
import type { KubeObject } from "../kube/objects.ts";
import { FieldProjection } from "./field-projection.ts";

const pod: KubeObject & Record<string, unknown> = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-1", namespace: "ns", resourceVersion: "7", labels: { app: "web" }, managedFields: [{ manager: "kubelet" }] },
  spec: { nodeName: "node-1", containers: [{ name: "web", image: "nginx" }], initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }] },
  status: {
    phase: "Running",
    hostIP: "10.0.0.1",
    conditions: [
      { type: "Ready", status: "True", lastTransitionTime: "2026-11-01T00:00:00Z", lastProbeTime: null },
      { type: "PodScheduled", status: "True", lastTransitionTime: "2026-11-01T00:00:00Z", lastProbeTime: null },
    ],
    containerStatuses: [{ name: "web", restartCount: 2, image: "nginx", state: { running: {} } }],
  },
};

const readerFields = ["spec.nodeName", "status.phase", "status.conditions.type", "status.conditions.status", "status.containerStatuses.restartCount"];

describe("FieldProjection", () => {
  test("keeps the declared fields, through arrays, with apiVersion, kind and the metadata without managedFields", () => {
    expect(new FieldProjection(readerFields).project(pod)).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "ns", resourceVersion: "7", labels: { app: "web" } },
      spec: { nodeName: "node-1" },
      status: {
        phase: "Running",
        conditions: [
          { type: "Ready", status: "True" },
          { type: "PodScheduled", status: "True" },
        ],
        containerStatuses: [{ restartCount: 2 }],
      },
    });
  });

  test("an object a decoder built with exactly the kept fields is kept as it is, not copied again", () => {
    const projection = new FieldProjection(["status.phase"]);
    const decoded = noteBuiltFrom({ metadata: { name: "a" }, status: { phase: "Running" } }, projection.tree);
    expect(projection.project(decoded)).toBe(decoded);
    const other = noteBuiltFrom({ metadata: { name: "a" }, status: { phase: "Running" } }, new FieldProjection(["status"]).tree);
    expect(projection.project(other)).not.toBe(other);
  });

  test("fields absent from an object stay absent; a scalar where fields were declared is kept as it is", () => {
    const projection = new FieldProjection(["spec.nodeName", "status.conditions.type", "data.key"]);
    const config: KubeObject & Record<string, unknown> = { metadata: { name: "a" }, spec: {}, data: "plain" };
    expect(projection.project(config)).toEqual({ metadata: { name: "a" }, spec: {}, data: "plain" });
  });

  test("paths: a field kept whole covers its subfields; covers and missing tell what a later reader would lack", () => {
    const projection = new FieldProjection(["status.conditions", "status.conditions.type", "spec.nodeName"]);
    expect(projection.paths).toEqual(["apiVersion", "kind", "metadata", "spec.nodeName", "status.conditions"]);
    expect(projection.covers(["status.conditions.reason", "metadata.labels", "spec.nodeName"])).toBe(true);
    expect(projection.covers(["status.phase"])).toBe(false);
    expect(projection.missing(["status.phase", "status.conditions.status", "spec"])).toEqual(["status.phase", "spec"]);
  });

  test("a path that is not dotted field names is refused, naming it", () => {
    expect(() => new FieldProjection(["status..phase"])).toThrow('invalid field path "status..phase": expected field names joined by dots, like status.phase');
    expect(() => new FieldProjection([""])).toThrow('invalid field path ""');
    expect(() => new FieldProjection(["spec.containers[0]"])).toThrow('invalid field path "spec.containers[0]"');
  });

  test("guarded: declared fields read as projected; an undeclared one throws, naming it", () => {
    const projection = new FieldProjection(readerFields);
    const guarded = projection.guard(projection.project(pod), "Pod");
    expect(guarded.metadata?.labels?.app).toBe("web");
    const { spec, status } = guarded as unknown as { spec: Record<string, unknown>; status: { phase: string; conditions: Record<string, unknown>[]; containerStatuses: Record<string, unknown>[] } };
    expect(spec.nodeName).toBe("node-1");
    expect(status.conditions.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(status.containerStatuses.map((c) => c.restartCount)).toEqual([2]);
    expect(() => status.conditions[0]?.lastTransitionTime).toThrow("Pod field status.conditions.lastTransitionTime is not cached: declare it in fields");
    expect(() => (guarded as unknown as { status: Record<string, unknown> }).status.hostIP).toThrow("Pod field status.hostIP is not cached: declare it in fields");
    expect(() => spec.containers).toThrow("Pod field spec.containers is not cached");
  });

  test("guarded objects still serialize, compare, await and spread as plain ones", async () => {
    const projection = new FieldProjection(readerFields);
    const projected = projection.project(pod);
    const guarded = projection.guard(projected, "Pod");
    expect(JSON.parse(JSON.stringify(guarded))).toEqual(projected);
    expect(guarded).toEqual(projected);
    expect(await Promise.resolve(guarded)).toBe(guarded);
    expect({ ...guarded.metadata }).toEqual(projected.metadata ?? {});
    expect(Object.hasOwn(guarded, "spec")).toBe(true);
    // The same view of a nested object every time: identity checks keep working.
    expect(guarded.metadata).toBe(guarded.metadata);
  });
});
