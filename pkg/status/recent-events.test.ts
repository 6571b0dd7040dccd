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
  recent.recorded(event("SuccessfulCreate", "web"), 1);
  recent.recorded(event("Failed", "api"), 2);
  recent.recorded(event("SuccessfulCreate", "web"), 3);
  expect(recent.list()).toEqual([
    { at: 3, type: "Normal", reason: "SuccessfulCreate", regarding: "ReplicaSet default/web", note: "note", reportingController: "kube-loom", count: 2 },
    { at: 2, type: "Warning", reason: "Failed", regarding: "ReplicaSet default/api", note: "note", reportingController: "kube-loom", count: 1 },
  ]);
  recent.recorded(event("SuccessfulCreate", "web", "another note"), 4);
  expect(recent.list().map((e) => [e.note, e.at])).toEqual([["another note", 4], ["note", 3]]);
});

test("counts what the broadcaster did: writes by kind, repeats folded into a series, drops by reason", () => {
  const recent = new RecentEvents();
  recent.written("create");
  recent.written("create");
  recent.written("series");
  recent.aggregated();
  recent.dropped("spam-filter");
  recent.dropped("spam-filter");
  recent.dropped("write-failed");
  expect(recent.counts()).toEqual({
    written: { create: 2, series: 1 },
    aggregated: 1,
    dropped: { "buffer-full": 0, "spam-filter": 2, invalid: 0, "write-failed": 1, shutdown: 0 },
  });
});
