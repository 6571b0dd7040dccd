// kube-loom's process lifecycle, modelled on kube-controller-manager with controller-runtime's
// graceful shutdown: serve HTTP, wait for the API server, build the enabled controllers over
// one shared informer factory, start the informers, and run the controllers' workers only
// while this process holds the Lease.
import { EventBroadcaster } from "../events/broadcaster.ts";
import { KubeEventSink } from "../events/kube-event-sink.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { type CacheSyncSource, describeUnsynced, unsyncedSources, waitForNamedCacheSync } from "../informer/wait-for-cache-sync.ts";
import { loadClientConfig } from "../kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../kube/client.ts";
import { LeaderElectionHealthCheck } from "../leaderelection/healthz-adaptor.ts";
import { leaderElectionIdentity } from "../leaderelection/identity.ts";
import { LeaderElector } from "../leaderelection/leader-elector.ts";
import { KubeLeaseLock, type LeaderElectionRecord, recordFromLeaseSpec, type WireLeaseSpec } from "../leaderelection/lease-lock.ts";
import type { Logger } from "../log/logger.ts";
import { PrometheusLeaderElectionMetrics } from "../metrics/leader-election-metrics.ts";
import { createMetricsRegistry } from "../metrics/registry.ts";
import { restClientMetrics } from "../metrics/rest-client-metrics.ts";
import { PrometheusWorkqueueMetricsProvider } from "../metrics/workqueue-metrics.ts";
import { prometheusReconcileMetrics } from "../controller/reconcile-metrics.ts";
import type { Options } from "../options/options.ts";
import { HealthCheckSet } from "../server/health.ts";
import { createHttpApp, type HttpEndpoints } from "../server/http-app.ts";
import { serve, type RunningServer } from "../server/serve.ts";
import type { ControllerContext, ControllerDescriptor, RunningController } from "./controller-descriptor.ts";
import { waitForApiServer } from "./wait-for-apiserver.ts";

/** kube-controller-manager's grace on top of the lease duration before /healthz reports a stuck leader. */
const leaderElectionHealthToleranceMs = 20_000;

export type ExitReason = "terminated" | "leadership-lost";

export class Manager {
  private readonly endpoints: HttpEndpoints;
  private server: RunningServer | undefined;
  /** The caches the controllers read; undefined until the controllers are built. */
  private controllerCaches: CacheSyncSource[] | undefined;

  constructor(
    private readonly options: Options,
    private readonly descriptors: readonly ControllerDescriptor[],
    private readonly logger: Logger,
  ) {
    this.endpoints = {
      healthz: new HealthCheckSet(),
      livez: new HealthCheckSet(),
      readyz: new HealthCheckSet(),
      metrics: createMetricsRegistry(),
      debugRoutes: [],
    };
    // Not ready from the first request on: the server answers before the API server is even reached.
    this.endpoints.readyz.add({
      name: "informer-sync",
      check: () => {
        if (!this.controllerCaches) throw new Error("controllers not built yet (waiting for the API server)");
        const unsynced = unsyncedSources(this.controllerCaches);
        if (unsynced.length > 0) throw new Error(`informers not synced: ${describeUnsynced(unsynced).join("; ")}`);
      },
    });
  }

  /** The HTTP server's address once it is up. */
  get url(): string | undefined {
    return this.server?.url;
  }

  /**
   * Runs until `terminate` aborts (graceful stop, resolves "terminated") or the lease is lost
   * (resolves "leadership-lost" at once, with the controllers already aborted: the caller must exit).
   * Start-up failures throw.
   */
  async run(terminate: AbortSignal): Promise<ExitReason> {
    const { options, logger } = this;
    const registry = this.endpoints.metrics;
    const clientConfig = loadClientConfig(options.connection);
    const client = await createKubeClient(clientConfig, {
      qps: options.connection.qps,
      burst: options.connection.burst,
      timeoutMs: options.connection.requestTimeoutMs,
      observer: restClientMetrics(registry),
    });
    logger.info({ server: clientConfig.server, source: clientConfig.source }, "API server connection configured");

    if (options.serving.port !== 0) {
      this.server = await serve(createHttpApp(this.endpoints).fetch, options.serving.bindAddress, options.serving.port);
      logger.info({ url: this.server.url }, "serving /healthz, /livez, /readyz and /metrics");
    }
    const cleanup: (() => Promise<void>)[] = [async () => this.server?.stop()];
    let reason: ExitReason | undefined;
    try {
      const serverVersion = await waitForApiServer(client, { timeoutMs: options.apiserverWaitTimeoutMs, logger, signal: terminate });
      logger.info({ version: serverVersion.gitVersion }, "API server is healthy");
      reason = await this.runConnected(client, terminate, cleanup);
      return reason;
    } finally {
      // A process that lost its lease exits at once; an orderly clean-up could take seconds.
      if (reason !== "leadership-lost") {
        for (const step of cleanup.reverse()) await step().catch((err) => logger.warn({ err }, "clean-up step failed"));
      }
    }
  }

  private async runConnected(client: KubeClient, terminate: AbortSignal, cleanup: (() => Promise<void>)[]): Promise<ExitReason> {
    const { options, logger } = this;
    const registry = this.endpoints.metrics;
    const identity = leaderElectionIdentity();
    const broadcaster = new EventBroadcaster({ sink: new KubeEventSink(client), reportingInstance: identity, logger });
    broadcaster.start();
    cleanup.push(() => broadcaster.shutdown());
    const recorder = broadcaster.newRecorder();

    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope),
      // kube-controller-manager's resync: random in [min-resync-period, 2 × min-resync-period), once per factory.
      defaultResyncMs: options.minResyncPeriodMs * (1 + Math.random()),
      logger,
    });
    cleanup.push(() => informers.shutdown());

    const context: ControllerContext = {
      client,
      informers,
      events: recorder,
      logger,
      metrics: registry,
      workqueueMetrics: new PrometheusWorkqueueMetricsProvider(registry),
      reconcileMetrics: prometheusReconcileMetrics(registry),
      values: options.values,
      identity,
    };
    const controllers = await this.createControllers(context);
    const leaseChanges = new EventTarget();
    if (options.leaderElection.enabled) this.watchLease(informers, leaseChanges);

    const informersStop = new AbortController();
    cleanup.push(async () => informersStop.abort());
    informers.start(informersStop.signal);

    const run = (stop: AbortSignal, abort: AbortSignal) => this.runControllers(controllers, stop, abort);
    if (!options.leaderElection.enabled) {
      return this.runWithoutLeaderElection(run, terminate);
    }
    return this.runWithLeaderElection(client, identity, recorder, run, terminate, leaseChanges);
  }

  /** Passes every version of the Lease a watch sees to `changes` (a standby's elector observes them). */
  private watchLease(informers: SharedInformerFactory, changes: EventTarget): void {
    const { resourceNamespace, resourceName } = this.options.leaderElection;
    const { informer } = informers.leases({ namespace: resourceNamespace, fieldSelector: `metadata.name=${resourceName}` });
    const publish = (lease: { spec?: WireLeaseSpec }) => {
      changes.dispatchEvent(new CustomEvent("lease", { detail: recordFromLeaseSpec(lease.spec) }));
    };
    informer.addEventHandler({ onAdd: publish, onUpdate: (_old, lease) => publish(lease) });
  }

  private async createControllers(context: ControllerContext): Promise<Map<string, RunningController>> {
    const controllers = new Map<string, RunningController>();
    const caches = new Set<CacheSyncSource>();
    for (const name of this.options.enabledControllers) {
      const descriptor = this.descriptors.find((d) => d.name === name);
      if (!descriptor) throw new Error(`no descriptor for enabled controller "${name}"`);
      const logger = this.logger.child({ controller: name });
      const controller = await descriptor.create({ ...context, logger });
      if (!controller) {
        logger.warn("controller is not started");
        continue;
      }
      if (controller.healthCheck) {
        this.endpoints.healthz.add(controller.healthCheck);
        this.endpoints.livez.add(controller.healthCheck);
      }
      this.endpoints.debugRoutes.push(...(controller.debugRoutes ?? []));
      for (const cache of controller.informers ?? []) caches.add(cache);
      controllers.set(name, controller);
      logger.info("controller created");
    }
    this.controllerCaches = [...caches];
    return controllers;
  }

  /** Each controller starts as soon as its own caches have synced; none waits for another's. */
  private async runControllers(controllers: Map<string, RunningController>, stop: AbortSignal, abort: AbortSignal): Promise<void> {
    this.logger.info({ controllers: [...controllers.keys()] }, "starting controllers");
    await Promise.all([...controllers].map(([name, controller]) => this.runController(name, controller, stop, abort)));
  }

  private async runController(name: string, controller: RunningController, stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const logger = this.logger.child({ controller: name });
    if (!(await waitForNamedCacheSync(name, controller.informers ?? [], stop, { logger }))) return;
    if (controller.informers?.length) logger.info("caches synced; reconciling");
    await controller.run(stop, abort).catch((err) => logger.error({ err }, "controller stopped with an error"));
  }

  private async runWithoutLeaderElection(
    run: (stop: AbortSignal, abort: AbortSignal) => Promise<void>,
    terminate: AbortSignal,
  ): Promise<ExitReason> {
    const abort = new AbortController();
    const finished = run(terminate, abort.signal);
    await abortedSignal(terminate);
    await this.drain(finished, abort);
    return "terminated";
  }

  private async runWithLeaderElection(
    client: KubeClient,
    identity: string,
    recorder: ControllerContext["events"],
    run: (stop: AbortSignal, abort: AbortSignal) => Promise<void>,
    terminate: AbortSignal,
    leaseChanges: EventTarget,
  ): Promise<ExitReason> {
    const { leaderElection, connection } = this.options;
    const registry = this.endpoints.metrics;
    const health = new LeaderElectionHealthCheck(leaderElectionHealthToleranceMs);
    this.endpoints.healthz.add(health);
    this.endpoints.livez.add(health);
    const lease = { namespace: leaderElection.resourceNamespace, name: leaderElection.resourceName };
    const leaseRef = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: lease };

    const electorStop = new AbortController();
    const gracefulStop = new AbortController();
    const hardAbort = new AbortController();
    let controllersFinished: Promise<void> = Promise.resolve();
    let leadershipLost!: () => void;
    const lost = new Promise<"leadership-lost">((resolve) => (leadershipLost = () => resolve("leadership-lost")));

    const elector = new LeaderElector({
      lock: new KubeLeaseLock({
        client,
        qps: connection.qps,
        burst: connection.burst,
        ...lease,
        identity,
        renewDeadlineMs: leaderElection.renewDeadlineMs,
      }),
      leaseDurationMs: leaderElection.leaseDurationMs,
      renewDeadlineMs: leaderElection.renewDeadlineMs,
      retryPeriodMs: leaderElection.retryPeriodMs,
      // Unlike kube-controller-manager (kubernetes#132599), hand the lease over on a clean exit.
      releaseOnCancel: true,
      name: lease.name,
      logger: this.logger,
      metrics: new PrometheusLeaderElectionMetrics(registry),
      onLeadershipEvent: (reason, message) => recorder.eventf(leaseRef, undefined, "Normal", reason, "Leading", message),
      callbacks: {
        onStartedLeading: (leaderSignal) => {
          this.logger.info({ identity }, "became leader; starting controllers");
          // Losing the lease aborts the controllers at once; a termination only stops new work.
          leaderSignal.addEventListener("abort", () => hardAbort.abort(), { once: true });
          controllersFinished = run(AbortSignal.any([gracefulStop.signal, leaderSignal]), hardAbort.signal);
        },
        onStoppedLeading: () => {
          if (!electorStop.signal.aborted) leadershipLost();
        },
        onNewLeader: (holder) => {
          if (holder !== identity) this.logger.info({ leader: holder }, "new leader elected");
        },
      },
    });
    health.setLeaderElection(elector);
    leaseChanges.addEventListener("lease", (event) => elector.observe((event as CustomEvent<LeaderElectionRecord>).detail));
    const electorDone = elector.run(electorStop.signal);

    const reason = await Promise.race([lost, abortedSignal(terminate).then(() => "terminated" as const)]);
    if (reason === "leadership-lost") {
      this.logger.error({ lease: `${lease.namespace}/${lease.name}` }, "leaderelection lost");
      return reason;
    }
    // Graceful: finish in-flight work while still holding the lease, then hand it over.
    gracefulStop.abort();
    await this.drain(controllersFinished, hardAbort);
    electorStop.abort();
    await electorDone;
    return "terminated";
  }

  /** Waits for in-flight reconciles up to --shutdown-grace-period, then aborts them. */
  private async drain(finished: Promise<void>, abort: AbortController): Promise<void> {
    const graceMs = this.options.shutdownGracePeriodMs;
    const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref?.());
    const outcome = await Promise.race([finished.then(() => "done" as const), timer]);
    if (outcome === "timeout") {
      this.logger.warn({ graceMs }, "in-flight work did not finish within the shutdown grace period; aborting it");
      abort.abort();
    }
  }
}

function abortedSignal(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
