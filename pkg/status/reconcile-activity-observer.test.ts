import { expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { ReconcileActivityObserver } from "./reconcile-activity-observer.ts";

test("each loop's activity is kept apart, by the runner's name; a loop with no reconcile yet has an empty summary", () => {
  const observer = new ReconcileActivityObserver(new FakeClock());
  observer.finished("deletes", "ns/a", "success", 0.5);
  observer.finished("deletes", "ns/b", "error", 0.25, new Error("conflict"));
  observer.finished("orphans", "ns/c", "requeue_after", 1);
  expect(observer.summary("deletes")).toMatchObject({
    outcomes: { success: 1, error: 1, requeueAfter: 0, terminalError: 0 },
    sampleCount: 2,
    slowest: { key: "ns/a", seconds: 0.5 },
    lastErrors: [{ key: "ns/b", message: "conflict", terminal: false }],
  });
  expect(observer.summary("orphans")).toMatchObject({ outcomes: { success: 0, error: 0, requeueAfter: 1, terminalError: 0 }, sampleCount: 1 });
  expect(observer.summary("idle")).toMatchObject({ outcomes: { success: 0, error: 0, requeueAfter: 0, terminalError: 0 }, sampleCount: 0, slowest: undefined, lastErrors: [] });
});
