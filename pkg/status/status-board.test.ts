import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { ReconcileRunner } from "../controller/internal/reconcile-runner.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { resources } from "../kube/gvr.ts";
import { silentLogger } from "../log/logger.ts";
import { createMetricsRegistry } from "../metrics/registry.ts";
import { PrometheusWorkqueueMetricsProvider } from "../metrics/workqueue-metrics.ts";
import { defaultControllerRateLimiter } from "../workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../workqueue/rate-limiting-queue.ts";
import { eventually } from "../../test/support/eventually.ts";
import { FakeListerWatcher } from "../../test/support/fake-lister-watcher.ts";
import { obj } from "../../test/support/objects.ts";
import { RecentEvents } from "./recent-events.ts";
import { StatusBoard } from "./status-board.ts";

const process = { identity: "host_1", version: "v0.1.0", startedAt: 1 };

describe("StatusBoard", () => {
  test("before the API server is reached: only the process and no parts", async () => {
    const clock = new FakeClock();
    const board = new StatusBoard({ process, metrics: createMetricsRegistry(), events: new RecentEvents(), clock });
    expect(await board.snapshot()).toEqual({
      generatedAt: clock.now(),
      process,
      leaderElection: undefined,
      shardRing: undefined,
      controllers: [],
      informers: [],
      events: [],
      eventCounts: {
        written: { create: 0, series: 0 },
        aggregated: 0,
        dropped: { "buffer-full": 0, "spam-filter": 0, invalid: 0, "write-failed": 0, shutdown: 0 },
      },
    });
  });

  test("a controller's loop: the runner's state, its reconciles as observed, its queue's adds and retries from the workqueue metrics; the last error names its key", async () => {
    const clock = new FakeClock();
    const metrics = createMetricsRegistry();
    const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(clock), {
      name: "demo",
      clock,
      metricsProvider: new PrometheusWorkqueueMetricsProvider(metrics),
    });
    const board = new StatusBoard({ process, metrics, events: new RecentEvents(), clock });
    const runner = new ReconcileRunner<string>({
      name: "demo",
      queue,
      workers: 2,
      logger: silentLogger,
      observer: board.reconciles,
      clock,
      reconciler: {
        reconcile: async (key) => {
          if (key === "ns/bad") throw new Error("the API server said no");
        },
      },
    });
    const stop = new AbortController();
    const running = runner.run(stop.signal);
    queue.add("ns/good");
    queue.add("ns/bad");
    board.attach({ controllers: () => [{ name: "demo", loops: [runner.status()], details: [{ label: "widgets", value: 3 }] }] });
    await eventually(() => board.reconciles.summary("demo").outcomes.error === 1, "the failed reconcile");

    const [controller] = (await board.snapshot()).controllers;
    expect(controller).toMatchObject({ name: "demo", details: [{ label: "widgets", value: 3 }] });
    expect(controller?.loops).toEqual([
      expect.objectContaining({
        name: "demo",
        queue: "demo",
        state: "running",
        workers: 2,
        depth: 0,
        inFlight: [],
        adds: 2,
        // The failed key waits out its backoff on the fake clock.
        retries: 1,
        outcomes: { success: 1, error: 1, requeue: 0, requeueAfter: 0, terminalError: 0 },
        sampleCount: 2,
        lastErrors: [{ at: clock.now(), key: "ns/bad", message: "the API server said no", terminal: false }],
      }),
    ]);
    stop.abort();
    await running;
  });

  test("informers: sync state, size, resourceVersion and counters, and why one has not synced", async () => {
    const clock = new FakeClock();
    const pods = new FakeListerWatcher([obj("ns/a"), obj("ns/b")]);
    const configMaps = new FakeListerWatcher();
    configMaps.failNextWatch(new Error("connection refused"));
    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr) => (gvr.resource === "pods" ? pods : configMaps),
      defaultResyncMs: 0,
      clock,
    });
    informers.forResource(resources.pods);
    informers.forResource(resources.configMaps);
    const stop = new AbortController();
    informers.start(stop.signal);
    const board = new StatusBoard({ process, metrics: createMetricsRegistry(), events: new RecentEvents(), clock });
    board.attach({ informers: () => informers.list() });
    await eventually(() => informers.list().every((i) => i.hasSynced() || i.counters.errors === 1), "one synced, one failed");

    expect((await board.snapshot()).informers).toEqual([
      { name: "configmaps.v1", synced: false, objects: 0, resourceVersion: "", lists: 1, relists: 0, watches: 1, errors: 1, handlerErrors: 0, lastError: "connection refused" },
      {
        name: "pods.v1",
        synced: true,
        objects: 2,
        resourceVersion: pods.currentResourceVersion,
        lists: 1,
        relists: 0,
        watches: 1,
        errors: 0,
        handlerErrors: 0,
        lastError: undefined,
      },
    ]);
    stop.abort();
    await informers.shutdown();
  });
});
