import { expect, test } from "bun:test";
import type { KubeEvent } from "../events/event.ts";
import { RecentEvents } from "./recent-events.ts";

function event(reason: string, name: string, note = "note"): KubeEvent {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `${name}.1`, namespace: "default" },
    eventTime: "2026-01-01T00:00:00.000000Z",
    reportingController: "kube-loom",
    reportingInstance: "me",
    type: reason === "Failed" ? "Warning" : "Normal",
    reason,
    action: "Act",
    note,
    regarding: { apiVersion: "apps/v1", kind: "ReplicaSet", namespace: "default", name },
  };
}

test("recent Events: newest first, repeats counted in place of a new entry, oldest dropped past the capacity", () => {
  const recent = new RecentEvents(2);
  recent.record(event("SuccessfulCreate", "web"), 1);
  recent.record(event("Failed", "api"), 2);
  recent.record(event("SuccessfulCreate", "web"), 3);
  expect(recent.list()).toEqual([
    { at: 3, type: "Normal", reason: "SuccessfulCreate", regarding: "ReplicaSet default/web", note: "note", reportingController: "kube-loom", count: 2 },
    { at: 2, type: "Warning", reason: "Failed", regarding: "ReplicaSet default/api", note: "note", reportingController: "kube-loom", count: 1 },
  ]);
  recent.record(event("SuccessfulCreate", "web", "another note"), 4);
  expect(recent.list().map((e) => [e.note, e.at])).toEqual([["another note", 4], ["note", 3]]);
});
