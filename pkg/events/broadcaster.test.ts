import { describe, expect, test } from "bun:test";
import pino from "pino";
import { FakeClock } from "../clock/fake-clock.ts";
import { ApiError, TransportError } from "../kube/errors.ts";
import type { KubeObject, Status } from "../kube/objects.ts";
import { EventBroadcaster, type EventBroadcasterOptions } from "./broadcaster.ts";
import type { KubeEvent } from "./event.ts";
import { FakeEventSink } from "../../test/support/fake-event-sink.ts";
import type { EventDropReason, EventObserver, EventWrite } from "./event-observer.ts";

const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-1", namespace: "shop", uid: "uid-web-1", resourceVersion: "42" },
};
const replicaSet: KubeObject = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: { name: "web", namespace: "shop", uid: "uid-web", resourceVersion: "7" },
};
const node: KubeObject = { apiVersion: "v1", kind: "Node", metadata: { name: "node-a", uid: "uid-node-a" } };

const flushIntervalMs = 30_000;
const retryDelayMs = 1_000;
/** Longest a retry waits, jitter included. */
const maxRetryWaitMs = retryDelayMs * 1.25;

class CountingObserver implements EventObserver {
  readonly recordings: { note: string; at: number }[] = [];
  readonly writes = { create: 0, series: 0 };
  aggregations = 0;
  readonly drops = new Map<EventDropReason, number>();
  recorded(event: KubeEvent, observedAt: number): void {
    this.recordings.push({ note: event.note, at: observedAt });
  }
  written(write: EventWrite): void {
    this.writes[write]++;
  }
  aggregated(): void {
    this.aggregations++;
  }
  dropped(reason: EventDropReason): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
  }
}

function setUp(options: Partial<EventBroadcasterOptions> = {}, start = true) {
  const clock = new FakeClock(Date.parse("2026-11-21T23:40:01.123Z"));
  const sink = new FakeEventSink();
  const observed = new CountingObserver();
  const broadcaster = new EventBroadcaster({
    sink,
    reportingInstance: "kube-loom-host-1_abc",
    clock,
    observer: observed,
    seriesFlushIntervalMs: flushIntervalMs,
    retryDelayMs,
    ...options,
  });
  if (start) broadcaster.start();
  const recorder = broadcaster.newRecorder("replicaset-controller");
  return { clock, sink, observed, broadcaster, recorder };
}

/** Lets the writer loop run until it waits for something. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const storedEvents = (sink: FakeEventSink): KubeEvent[] => [...sink.events.values()];

describe("EventBroadcaster", () => {
  test("writes an events.k8s.io/v1 Event with client-go's fields", async () => {
    const { sink, recorder, observed } = setUp();
    recorder.eventf(replicaSet, pod, "Normal", "SuccessfulCreate", "Create", "Created pod: web-1");
    await settle();
    const [event] = storedEvents(sink);
    expect(event).toEqual({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: expect.stringMatching(/^web\.[0-9a-f]+$/), namespace: "shop" },
      eventTime: "2026-11-21T23:40:01.123000Z",
      reportingController: "replicaset-controller",
      reportingInstance: "kube-loom-host-1_abc",
      type: "Normal",
      reason: "SuccessfulCreate",
      action: "Create",
      note: "Created pod: web-1",
      regarding: { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", namespace: "shop", uid: "uid-web", resourceVersion: "7" },
      related: { apiVersion: "v1", kind: "Pod", name: "web-1", namespace: "shop", uid: "uid-web-1", resourceVersion: "42" },
    });
    expect(event?.series).toBeUndefined();
    expect(observed.writes.create).toBe(1);
  });

  test("puts Events about cluster-scoped objects into the default namespace", async () => {
    const { sink, recorder } = setUp();
    recorder.eventf(node, undefined, "Warning", "NodeNotReady", "Check", "node is not ready");
    await settle();
    const [event] = storedEvents(sink);
    expect(event?.metadata.namespace).toBe("default");
    expect(event?.metadata.name).toMatch(/^node-a\./);
    expect(event?.regarding.namespace).toBeUndefined();
    expect(event?.related).toBeUndefined();
  });

  test("reports as kube-loom unless told otherwise", async () => {
    const { sink, broadcaster } = setUp();
    broadcaster.newRecorder().eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    await settle();
    expect(storedEvents(sink)[0]?.reportingController).toBe("kube-loom");
  });

  test("gives Events recorded in the same millisecond distinct names", async () => {
    const { sink, recorder } = setUp();
    recorder.eventf(pod, undefined, "Normal", "Pulled", "Pull", "image a");
    recorder.eventf(pod, undefined, "Normal", "Pulled", "Pull", "image b");
    await settle();
    expect(sink.events.size).toBe(2);
  });

  test("folds repeats of an identical Event into one series written per flush interval, not per repeat", async () => {
    const { clock, sink, recorder, observed } = setUp();
    const repeat = () => recorder.eventf(pod, undefined, "Warning", "BackOff", "Restart", "Back-off restarting container");
    repeat();
    await settle();
    for (let i = 0; i < 9; i++) {
      await clock.advance(1_000);
      repeat();
    }
    await settle();
    expect(sink.calls.map((call) => call.method)).toEqual(["create"]);
    expect(observed.aggregations).toBe(9);

    await clock.advance(flushIntervalMs);
    await settle();
    const [created, patched] = sink.calls;
    expect(patched).toEqual({
      method: "patch",
      key: created?.key ?? "",
      body: { series: { count: 10, lastObservedTime: "2026-11-21T23:40:10.123000Z" } },
    });
    expect(storedEvents(sink)[0]?.series?.count).toBe(10);

    repeat();
    repeat();
    await settle();
    await clock.advance(flushIntervalMs);
    await settle();
    expect(sink.callsOf("patch").map((call) => call.body)).toEqual([
      { series: { count: 10, lastObservedTime: "2026-11-21T23:40:10.123000Z" } },
      { series: { count: 12, lastObservedTime: "2026-11-21T23:40:40.123000Z" } },
    ]);

    // Nothing new observed: nothing written.
    await clock.advance(flushIntervalMs);
    await settle();
    expect(sink.calls).toHaveLength(3);
    expect(observed.writes).toEqual({ create: 1, series: 2 });
  });

  test("a different note, reason or object makes a different Event", async () => {
    const { clock, sink, recorder } = setUp();
    recorder.eventf(pod, undefined, "Normal", "Scaled", "Scale", "to 2");
    recorder.eventf(pod, undefined, "Normal", "Scaled", "Scale", "to 3");
    recorder.eventf(pod, undefined, "Normal", "Resized", "Scale", "to 3");
    recorder.eventf(replicaSet, undefined, "Normal", "Scaled", "Scale", "to 3");
    await settle();
    await clock.advance(flushIntervalMs);
    await settle();
    expect(sink.callsOf("create")).toHaveLength(4);
    expect(sink.callsOf("patch")).toHaveLength(0);
  });

  test("a new resourceVersion of the same object still repeats the Event", async () => {
    const { clock, sink, recorder } = setUp();
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    const updated = { ...pod, metadata: { ...pod.metadata, resourceVersion: "43" } };
    recorder.eventf(updated, undefined, "Normal", "Synced", "Sync", "ok");
    await settle();
    await clock.advance(flushIntervalMs);
    await settle();
    expect(sink.calls.map((call) => call.method)).toEqual(["create", "patch"]);
  });

  test("a series ends after 6 minutes without a repeat; the next occurrence is a new Event", async () => {
    const { clock, sink, recorder } = setUp();
    const record = () => recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    record();
    record();
    await settle();
    await clock.advance(6 * 60_000 + 1);
    record();
    await settle();
    expect(sink.callsOf("create")).toHaveLength(2);
    expect(sink.callsOf("patch")).toHaveLength(1);
  });

  test("the spam filter lets 25 new Events per object through, then one per 5 minutes", async () => {
    const { clock, sink, recorder, observed } = setUp();
    for (let i = 0; i < 30; i++) recorder.eventf(pod, undefined, "Warning", "Failed", "Sync", `attempt ${i}`);
    recorder.eventf(replicaSet, undefined, "Warning", "Failed", "Sync", "other object");
    await settle();
    expect(sink.events.size).toBe(26);
    expect(observed.drops.get("spam-filter")).toBe(5);

    await clock.advance(5 * 60_000);
    recorder.eventf(pod, undefined, "Warning", "Failed", "Sync", "later 1");
    recorder.eventf(pod, undefined, "Warning", "Failed", "Sync", "later 2");
    await settle();
    expect(sink.events.size).toBe(27);
    expect(observed.drops.get("spam-filter")).toBe(6);
  });

  test("repeats folded into a series take no spam-filter tokens", async () => {
    const { clock, sink, recorder, observed } = setUp();
    for (let i = 0; i < 100; i++) recorder.eventf(pod, undefined, "Warning", "BackOff", "Restart", "same");
    recorder.eventf(pod, undefined, "Warning", "Failed", "Sync", "something else");
    await settle();
    await clock.advance(flushIntervalMs);
    await settle();
    expect(observed.drops.size).toBe(0);
    expect(sink.callsOf("create")).toHaveLength(2);
    expect(storedEvents(sink).map((event) => event.series?.count)).toEqual([100, undefined]);
  });

  test("a full buffer drops Events without blocking the caller", async () => {
    const { sink, recorder, observed, broadcaster } = setUp({ bufferSize: 3 }, false);
    for (let i = 0; i < 5; i++) recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", `n${i}`);
    expect(observed.drops.get("buffer-full")).toBe(2);
    broadcaster.start();
    await settle();
    expect(storedEvents(sink).map((event) => event.note)).toEqual(["n0", "n1", "n2"]);
  });

  test("the observer hears of every Event taken for writing (the status page's recent Events), not of those dropped", () => {
    const { clock, recorder, observed } = setUp({ bufferSize: 2 }, false);
    for (let i = 0; i < 3; i++) recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", `n${i}`);
    expect(observed.recordings.map(({ note, at }) => `${note}@${at - clock.now()}`)).toEqual(["n0@0", "n1@0"]);
  });

  test("retries a failing write a bounded number of times, then drops it", async () => {
    const { clock, sink, recorder, observed } = setUp({ maxWriteAttempts: 3 });
    sink.failWith = () => new TransportError("connection refused", "https://apiserver", "ECONNREFUSED");
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    for (let i = 0; i < 5; i++) {
      await settle();
      await clock.advance(maxRetryWaitMs);
    }
    expect(sink.calls).toHaveLength(3);
    expect(observed.drops.get("write-failed")).toBe(1);
  });

  test("a write that fails transiently succeeds on retry", async () => {
    const { clock, sink, recorder, observed } = setUp();
    let failures = 1;
    sink.failWith = () => (failures-- > 0 ? new ApiError(503, "ServiceUnavailable", "busy", "POST", "/events") : undefined);
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    await settle();
    await clock.advance(maxRetryWaitMs);
    await settle();
    expect(sink.calls).toHaveLength(2);
    expect(sink.events.size).toBe(1);
    expect(observed.writes.create).toBe(1);
  });

  test("an Event the server refuses is not retried", async () => {
    const { clock, sink, recorder, observed } = setUp();
    sink.failWith = () => new ApiError(403, "Forbidden", "no", "POST", "/events");
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    await settle();
    await clock.advance(10 * maxRetryWaitMs);
    expect(sink.calls).toHaveLength(1);
    expect(observed.drops.get("write-failed")).toBe(1);
  });

  test("an Event that is given up on is logged as an error, naming the refusal", async () => {
    const lines: { level: number; msg: string; err?: { message?: string } }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const { clock, sink, recorder } = setUp({ logger });
    sink.failWith = () => new ApiError(403, "Forbidden", 'events.events.k8s.io is forbidden: User "x" cannot create resource "events"', "POST", "/events");
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    await settle();
    await clock.advance(10 * maxRetryWaitMs);
    const gaveUp = lines.find((line) => line.msg === "Unable to write event, giving up");
    expect(gaveUp?.level).toBe(50);
    expect(gaveUp?.err?.message).toContain('cannot create resource "events"');
  });

  test("an Event refused because its namespace is being deleted is dropped quietly, as client-go's recorder drops it", async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const { clock, sink, recorder, observed } = setUp({ logger });
    const message = "unable to create new content in namespace shop because it is being terminated";
    const status: Status = {
      kind: "Status",
      code: 403,
      reason: "Forbidden",
      message,
      details: { name: "web-1.18ec4d3e06e57f40", kind: "events", causes: [{ reason: "NamespaceTerminating", message: "namespace shop is being terminated", field: "metadata.namespace" }] },
    };
    sink.failWith = () => new ApiError(403, "Forbidden", message, "POST", "/events", status);
    recorder.eventf(pod, undefined, "Normal", "SuccessfulDelete", "Delete", "deleted");
    await settle();
    await clock.advance(10 * maxRetryWaitMs);
    expect(sink.calls).toHaveLength(1);
    expect(observed.drops.get("write-failed")).toBe(1);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(lines.map((line) => line.msg)).toContain("Event refused: its namespace is being deleted");
  });

  test("a series patch that meets a 404 creates the Event again, with its series", async () => {
    const { clock, sink, recorder } = setUp();
    recorder.eventf(pod, undefined, "Warning", "BackOff", "Restart", "again");
    await settle();
    const [key] = sink.events.keys();
    sink.events.clear();
    recorder.eventf(pod, undefined, "Warning", "BackOff", "Restart", "again");
    recorder.eventf(pod, undefined, "Warning", "BackOff", "Restart", "again");
    await settle();
    await clock.advance(flushIntervalMs);
    await settle();
    expect(sink.calls.map((call) => `${call.method} ${call.key}`)).toEqual([`create ${key}`, `patch ${key}`, `create ${key}`]);
    const recreated = sink.events.get(key ?? "");
    expect(recreated?.note).toBe("again");
    expect(recreated?.series).toEqual({ count: 3, lastObservedTime: "2026-11-21T23:40:01.123000Z" });
  });

  test("recording never throws, not for nameless objects, failing sinks or after shutdown", async () => {
    const { sink, recorder, observed, broadcaster } = setUp({ maxWriteAttempts: 1 });
    sink.failWith = () => new Error("boom");
    expect(() => recorder.eventf({ kind: "Pod" }, undefined, "Normal", "Synced", "Sync", "ok")).not.toThrow();
    expect(() => recorder.eventf(undefined as unknown as KubeObject, undefined, "Normal", "Synced", "Sync", "ok")).not.toThrow();
    expect(() => recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok")).not.toThrow();
    await settle();
    await broadcaster.shutdown();
    expect(() => recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "late")).not.toThrow();
    expect(observed.drops.get("invalid")).toBe(2);
    expect(observed.drops.get("shutdown")).toBe(1);
  });

  test("shutdown writes what is buffered and the grown series", async () => {
    const { sink, recorder, broadcaster } = setUp();
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    recorder.eventf(pod, undefined, "Normal", "Killing", "Kill", "bye");
    await broadcaster.shutdown();
    expect(sink.calls.map((call) => call.method)).toEqual(["create", "create", "patch"]);
    expect(storedEvents(sink)[0]?.series?.count).toBe(2);
  });

  test("shutdown gives up at its deadline and drops what is left", async () => {
    const { clock, sink, recorder, observed, broadcaster } = setUp({ shutdownTimeoutMs: 5_000 });
    sink.gate = new Promise(() => {});
    for (let i = 0; i < 3; i++) recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", `n${i}`);
    await settle();
    let done = false;
    void broadcaster.shutdown().then(() => (done = true));
    await clock.advance(4_999);
    expect(done).toBe(false);
    await clock.advance(1);
    await settle();
    expect(done).toBe(true);
    expect(sink.calls).toHaveLength(1);
    expect(observed.drops.get("shutdown")).toBe(2);
  });

  test("shutdown without start drops the buffered Events", async () => {
    const { sink, recorder, observed, broadcaster } = setUp({}, false);
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    await broadcaster.shutdown();
    expect(sink.calls).toHaveLength(0);
    expect(observed.drops.get("shutdown")).toBe(1);
  });

  test("aborting the start signal shuts down", async () => {
    const { sink, recorder, broadcaster } = setUp({}, false);
    const stop = new AbortController();
    broadcaster.start(stop.signal);
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "ok");
    stop.abort();
    await broadcaster.shutdown();
    expect(sink.calls).toHaveLength(1);
    recorder.eventf(pod, undefined, "Normal", "Synced", "Sync", "late");
    await settle();
    expect(sink.calls).toHaveLength(1);
  });
});
