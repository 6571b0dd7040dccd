// A ControllerContext for unit tests of controllers: the real informer factory and queue
// machinery over fakes the test provides, silent logs, no-op metrics, and flags at their defaults.
import { Registry } from "prom-client";
import { noopReconcileObserver } from "../../pkg/controller/reconcile-observer.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import type { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { waitForNamedCacheSync } from "../../pkg/informer/wait-for-cache-sync.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { silentLogger } from "../../pkg/log/logger.ts";
import type { ControllerContext, ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import type { FlagDefinition } from "../../pkg/options/flag-definition.ts";
import { FlagValues } from "../../pkg/options/flag-values.ts";
import { noopWorkqueueMetricsProvider } from "../../pkg/workqueue/metrics.ts";

export function testControllerContext(options: {
  client: KubeClient;
  informers: SharedInformerFactory;
  events: EventRecorder;
  descriptor: ControllerDescriptor;
  /** Flags set as if given on the command line. */
  flags?: ReadonlyMap<FlagDefinition, unknown>;
}): ControllerContext {
  return {
    client: options.client,
    informers: options.informers,
    events: options.events,
    logger: silentLogger,
    metrics: new Registry(),
    workqueueMetrics: noopWorkqueueMetricsProvider,
    reconcileObserver: noopReconcileObserver,
    values: new FlagValues(options.descriptor.flags, options.flags ? [options.flags] : []),
    identity: "test",
  };
}

/** Builds the controller, starts the informers, and runs it once its caches have synced, as the manager would. */
export async function runControllerForTest(
  descriptor: ControllerDescriptor,
  context: ControllerContext,
  stop: AbortSignal,
): Promise<{ running: Promise<void> }> {
  const controller = await descriptor.create(context);
  if (!controller) throw new Error(`controller ${descriptor.name} declined to start`);
  context.informers.start(stop);
  await waitForNamedCacheSync(descriptor.name, controller.caches ?? [], stop);
  return { running: controller.start(stop, stop) };
}
