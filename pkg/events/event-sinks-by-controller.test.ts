import { expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { KubeObject } from "../kube/objects.ts";
import { FakeEventSink } from "../../test/support/fake-event-sink.ts";
import { EventBroadcaster } from "./broadcaster.ts";
import { EventSinksByController } from "./event-sinks-by-controller.ts";

const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "web-1", namespace: "shop", uid: "uid-web-1" } };

test("a controller's Events, their series too, are written by the sink routed for it; the rest by the fallback", async () => {
  const clock = new FakeClock(Date.parse("2026-11-21T23:40:01.123Z"));
  const processSink = new FakeEventSink();
  const controllerSink = new FakeEventSink();
  const sinks = new EventSinksByController(processSink);
  sinks.route("replicaset-controller", controllerSink);
  const broadcaster = new EventBroadcaster({ sink: sinks, reportingInstance: "kube-loom-host-1_abc", clock, seriesFlushIntervalMs: 30_000 });
  broadcaster.start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  const controller = broadcaster.newRecorder("replicaset-controller");
  controller.eventf(pod, undefined, "Warning", "BackOff", "Restart", "Back-off restarting container");
  await settle();
  await clock.advance(1_000);
  controller.eventf(pod, undefined, "Warning", "BackOff", "Restart", "Back-off restarting container");
  broadcaster.newRecorder("kube-loom").eventf(pod, undefined, "Normal", "LeaderElection", "Lead", "became leader");
  await settle();
  await clock.advance(30_000);
  await settle();

  expect(controllerSink.calls.map((call) => call.method)).toEqual(["create", "patch"]);
  expect([...processSink.events.values()].map((event) => event.reason)).toEqual(["LeaderElection"]);
  await broadcaster.shutdown();
});
