// The network controller's machinery (seed 000's controller, kube-controller-manager style):
// a Network informer whose events and periodic resyncs feed a rate-limited workqueue, drained
// by --concurrent-network-syncs workers running the NetworkReconciler.
//
// The Network CRD may not be installed. The controller then waits, idle, on a one-object
// informer over its CustomResourceDefinition, and starts its Network informer once the CRD is
// established: installing the CRD later needs no restart.
import { ReconcileRunner } from "../../pkg/controller/reconcile-runner.ts";
import type { ReconcileMetrics } from "../../pkg/controller/reconcile-metrics.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import { isResync } from "../../pkg/informer/event-handler.ts";
import type { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { metaNamespaceKeyFunc } from "../../pkg/informer/keys.ts";
import { type CacheSyncSource, waitForNamedCacheSync } from "../../pkg/informer/wait-for-cache-sync.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { Logger } from "../../pkg/log/logger.ts";
import type { RunningController } from "../../pkg/manager/controller-descriptor.ts";
import type { HealthCheck } from "../../pkg/server/health.ts";
import type { WorkqueueMetricsProvider } from "../../pkg/workqueue/metrics.ts";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from "../../pkg/workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../../pkg/workqueue/rate-limiting-queue.ts";
import { NetworkReconciler } from "./network-reconciler.ts";
import { networkCrdName, networkGVR, networkVersion, type Network } from "./network-resource.ts";
import type { NetworkWriter } from "./network-writer.ts";
import { ProviderOutageBackoff } from "./provider-outage-backoff.ts";
import type { NetworkProvider } from "./providers/provider.ts";

export interface NetworkControllerOptions {
  informers: SharedInformerFactory;
  events: EventRecorder;
  logger: Logger;
  workqueueMetrics?: WorkqueueMetricsProvider;
  reconcileMetrics?: ReconcileMetrics;
  provider: NetworkProvider;
  writer: NetworkWriter;
  workers: number;
  /** How often every Network is compared with the provider again; 0: never. */
  resyncPeriodMs: number;
}

/** Provider errors: 1 s doubling to 5 min per Network (a cloud API deserves more patience than client-go's 5 ms start), 10/s overall. */
const providerErrorRateLimiter = () =>
  new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(1_000, 300_000), new BucketRateLimiter<string>(10, 100));

/** While the provider is unreachable, probes 1 s, 2 s, 4 s … apart, at most 30 s. */
const outageBackoff = { initialMs: 1_000, maxMs: 30_000 };

const name = "network";

interface CustomResourceDefinition extends KubeObject {
  spec?: { versions?: { name: string; served?: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

export class NetworkController implements RunningController {
  readonly healthCheck: HealthCheck;
  /** The CRD's informer: the manager runs the controller once it has synced; the Network informer is waited for in `run`. */
  readonly informers: readonly CacheSyncSource[];
  private readonly queue: RateLimitingQueue<string>;
  private readonly runner: ReconcileRunner<string>;
  private readonly crdEstablished: Promise<void>;
  private markEstablished!: () => void;
  private established = false;
  private networkLister: ((namespace: string, name: string) => Network | undefined) | undefined;

  constructor(private readonly options: NetworkControllerOptions) {
    this.queue = new RateLimitingQueue<string>(providerErrorRateLimiter(), {
      name,
      ...(options.workqueueMetrics ? { metricsProvider: options.workqueueMetrics } : {}),
    });
    const outage = new ProviderOutageBackoff({
      ...outageBackoff,
      onRecovered: (keys) => {
        options.logger.info({ networks: keys.length }, `${options.provider.kind} answers again; requeueing the Networks that waited`);
        for (const key of keys) this.queue.add(key);
      },
    });
    const reconciler = new NetworkReconciler({
      getNetwork: (namespace, networkName) => this.networkLister?.(namespace, networkName),
      writer: options.writer,
      provider: options.provider,
      outage,
      events: options.events,
      logger: options.logger,
    });
    this.runner = new ReconcileRunner({
      name,
      queue: this.queue,
      reconciler,
      workers: options.workers,
      logger: options.logger,
      ...(options.reconcileMetrics ? { metrics: options.reconcileMetrics } : {}),
    });
    this.healthCheck = this.runner.healthCheck();
    this.crdEstablished = new Promise((resolve) => (this.markEstablished = resolve));
    const crd = options.informers.forResource<CustomResourceDefinition>(resources.customResourceDefinitions, {
      fieldSelector: `metadata.name=${networkCrdName}`,
    });
    crd.informer.addEventHandler({
      onAdd: (object) => this.crdSeen(object),
      onUpdate: (_old, object) => this.crdSeen(object),
    });
    this.informers = [crd.informer];
  }

  async run(stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const { logger } = this.options;
    if (!this.established) {
      logger.warn(
        { crd: networkCrdName },
        `the ${networkCrdName} CustomResourceDefinition is not installed (or not established); the network controller stays idle until it is (see config/crd/)`,
      );
    }
    await Promise.race([this.crdEstablished, aborted(stop)]);
    if (stop.aborted) return;
    logger.info({ crd: networkCrdName, provider: this.options.provider.kind, workers: this.options.workers }, "Network CRD established; starting the network controller");

    const networks = this.options.informers.forResource<Network>(networkGVR);
    this.networkLister = (namespace, networkName) => networks.lister.namespace(namespace).get(networkName);
    networks.informer.addEventHandler(
      {
        onAdd: (network) => this.enqueue(network),
        onUpdate: (old, network) => {
          if (needsReconcile(old, network)) this.enqueue(network);
        },
      },
      { resyncPeriodMs: this.options.resyncPeriodMs },
    );
    this.options.informers.start(stop);
    if (!(await waitForNamedCacheSync(name, [networks.informer], stop, { logger }))) return;
    await this.runner.run(stop, abort);
  }

  private enqueue(network: Network): void {
    this.queue.add(metaNamespaceKeyFunc(network));
  }

  private crdSeen(crd: CustomResourceDefinition): void {
    const served = crd.spec?.versions?.some((version) => version.name === networkVersion && version.served !== false) ?? false;
    const established = crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
    if (served && established && !this.established) {
      this.established = true;
      this.markEstablished();
    }
  }
}

/**
 * Spec changes (a new generation), deletion and resyncs (drift checks) need a reconcile; the
 * controller's own writes (finalizer, status) do not. Neither does a generation say anything
 * across objects: a relist folds a delete and a re-create under the same name into one update,
 * with a new UID and quite possibly the same generation.
 */
function needsReconcile(old: Network, network: Network): boolean {
  return (
    isResync(old, network) ||
    old.metadata?.uid !== network.metadata?.uid ||
    old.metadata?.generation !== network.metadata?.generation ||
    old.metadata?.deletionTimestamp !== network.metadata?.deletionTimestamp
  );
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
