import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { noopReconcileObserver } from "../controller/reconcile-observer.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { ClientConfig } from "../kube/client-config.ts";
import { createKubeClient } from "../kube/client.ts";
import { silentLogger } from "../log/logger.ts";
import { FlagValues } from "../options/flag-values.ts";
import { noopWorkqueueMetricsProvider } from "../workqueue/metrics.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { createControllers } from "./create-controllers.ts";

const config: ClientConfig = { server: "https://api.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" };

test("each controller records its Events under its own name, as kube-controller-manager's controllers do", async () => {
  const recorders: string[] = [];
  const given = new Map<string, EventRecorder>();
  const descriptor = (name: string, extra: Partial<ControllerDescriptor> = {}): ControllerDescriptor => ({
    name,
    aliases: [],
    enabledByDefault: true,
    flags: [],
    create: async (context) => {
      given.set(name, context.events);
      return undefined;
    },
    ...extra,
  });
  const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch: async () => new Response("{}") });
  await createControllers(
    ["replicaset", "garbagecollector"],
    [descriptor("replicaset"), descriptor("garbagecollector", { reportingController: "garbage-collector-controller" })],
    {
      informers: {} as SharedInformerFactory,
      recorderFor: (reportingController) => {
        recorders.push(reportingController);
        return { eventf: () => {} };
      },
      logger: silentLogger,
      metrics: new Registry(),
      workqueueMetrics: noopWorkqueueMetricsProvider,
      reconcileObserver: noopReconcileObserver,
      values: new FlagValues([], []),
      identity: "test",
    },
    { client, connection: { qps: 20, burst: 30 } },
  );
  expect(recorders).toEqual(["replicaset-controller", "garbage-collector-controller"]);
  expect(given.size).toBe(2);
});
