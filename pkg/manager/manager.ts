// kube-loom's process lifecycle, modelled on kube-controller-manager with controller-runtime's
// runnable groups and graceful shutdown:
//   always:       HTTP server → (API server reachable) → event broadcaster → informers
//   while leader: the controllers, each once its own caches have synced
// Services stop in the reverse order once the controllers have finished; a process that lost
// its Lease skips that and exits at once.
import { EventBroadcaster } from "../events/broadcaster.ts";
import { KubeEventSink } from "../events/kube-event-sink.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { loadClientConfig } from "../kube/client-config.ts";
import { createKubeClient, type KubeClient, withRateLimit } from "../kube/client.ts";
import { leaderElectionIdentity } from "../leaderelection/identity.ts";
import type { Logger } from "../log/logger.ts";
import { createMetricsRegistry } from "../metrics/registry.ts";
import { restClientMetrics } from "../metrics/rest-client-metrics.ts";
import { versionInfoMetric } from "../metrics/version-info.ts";
import { PrometheusInformerMetricsProvider } from "../metrics/informer-metrics.ts";
import { PrometheusWorkqueueMetricsProvider } from "../metrics/workqueue-metrics.ts";
import { prometheusReconcileMetrics } from "../controller/reconcile-metrics.ts";
import type { Options } from "../options/options.ts";
import { HealthCheckSet } from "../server/health.ts";
import { createHttpApp, type HttpEndpoints } from "../server/http-app.ts";
import { startSecureServing } from "../server/secure-serving.ts";
import { serve, type RunningServer } from "../server/serve.ts";
import { RecentEvents } from "../status/recent-events.ts";
import { StatusBoard } from "../status/status-board.ts";
import { emulatedKubernetesVersion, runtimeVersion, version } from "../version.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { ControllerGroup } from "./controller-group.ts";
import { Leadership } from "./leadership.ts";
import { type ExitReason, runUntilTerminated } from "./run-controllers.ts";
import { type ClientForController, serviceAccountClients } from "./service-account-clients.ts";
import { ServiceGroup } from "./service-group.ts";
import { waitForApiServer } from "./wait-for-apiserver.ts";

export type { ExitReason } from "./run-controllers.ts";

/** How kube-loom names itself in /statusz, /flagz and version_info. */
const componentName = "kube-loom";

export class Manager {
  private readonly endpoints: HttpEndpoints;
  private readonly identity = leaderElectionIdentity();
  private readonly recentEvents = new RecentEvents();
  private readonly status: StatusBoard;
  private controllers: ControllerGroup | undefined;

  constructor(
    private readonly options: Options,
    private readonly descriptors: readonly ControllerDescriptor[],
    private readonly logger: Logger,
  ) {
    const metrics = createMetricsRegistry();
    const binaryVersion = version.replace(/^v/, "");
    versionInfoMetric(metrics, { component: componentName, binary: binaryVersion, emulation: emulatedKubernetesVersion });
    this.status = new StatusBoard({ process: { identity: this.identity, version, startedAt: Date.now() }, metrics, events: this.recentEvents });
    this.endpoints = {
      healthz: new HealthCheckSet(),
      livez: new HealthCheckSet(),
      readyz: new HealthCheckSet(),
      metrics,
      status: this.status,
      debugRoutes: [],
      component: {
        name: componentName,
        startedAt: performance.timeOrigin,
        binaryVersion,
        emulationVersion: emulatedKubernetesVersion,
        runtimeVersion: runtimeVersion(),
      },
      flags: options.values.texts(),
    };
    // Not ready from the first request on: the server answers before the API server is even reached.
    this.endpoints.readyz.add({
      name: "informer-sync",
      check: () => {
        if (!this.controllers) throw new Error("controllers not built yet (waiting for the API server)");
        return this.controllers.readinessCheck().check();
      },
    });
  }

  /**
   * Runs until `terminate` aborts (graceful stop, resolves "terminated") or the lease is lost
   * (resolves "leadership-lost" at once, with the controllers already aborted: the caller must exit).
   * Start-up failures throw.
   */
  async run(terminate: AbortSignal): Promise<ExitReason> {
    const { options, logger } = this;
    const clientConfig = loadClientConfig(options.connection);
    const clientOptions = {
      qps: options.connection.qps,
      burst: options.connection.burst,
      timeoutMs: options.connection.requestTimeoutMs,
      observer: restClientMetrics(this.endpoints.metrics),
    };
    const client = await createKubeClient(clientConfig, clientOptions);
    logger.info({ server: clientConfig.server, source: clientConfig.source }, "API server connection configured");

    const services = new ServiceGroup(logger);
    let reason: ExitReason | undefined;
    try {
      if (options.serving.secure.port !== 0) await services.start(this.httpsService(client));
      if (options.serving.insecure.port !== 0) await services.start(this.httpService());
      const serverVersion = await waitForApiServer(client, { timeoutMs: options.apiserverWaitTimeoutMs, logger, signal: terminate });
      logger.info({ version: serverVersion.gitVersion }, "API server is healthy");
      const clientFor = options.useServiceAccountCredentials
        ? serviceAccountClients(client, options.leaderElection.resourceNamespace, clientOptions)
        : undefined;
      reason = await this.runConnected(client, services, terminate, clientFor);
      return reason;
    } finally {
      // A process that lost its lease exits at once; an orderly clean-up could take seconds.
      if (reason !== "leadership-lost") await services.stopAll();
    }
  }

  private async runConnected(
    client: KubeClient,
    services: ServiceGroup,
    terminate: AbortSignal,
    clientFor: ClientForController | undefined,
  ): Promise<ExitReason> {
    const { options, logger } = this;
    const registry = this.endpoints.metrics;
    const { identity, recentEvents } = this;
    const broadcaster = new EventBroadcaster({
      sink: new KubeEventSink(client),
      reportingInstance: identity,
      logger,
      onRecorded: (event, observedAt) => recentEvents.record(event, observedAt),
    });
    await services.start({ name: "events", start: () => broadcaster.start(), stop: () => broadcaster.shutdown() });
    const events = broadcaster.newRecorder();
    // As in kube-controller-manager, metadata-only informers (the garbage collector's monitors) list
    // through a client of their own, so their start-up burst is not spent by the other informers'.
    const metadataClient = withRateLimit(client, options.connection.qps, options.connection.burst, "metadata-informers");
    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => (scope.metadataOnly ? metadataClient : client).dynamic.listerWatcher(gvr, scope),
      // kube-controller-manager's resync: random in [min-resync-period, 2 × min-resync-period), once per factory.
      defaultResyncMs: options.minResyncPeriodMs * (1 + Math.random()),
      logger,
      metrics: { provider: new PrometheusInformerMetricsProvider(registry), name: "kube-loom" },
    });
    this.status.attach({ informers: () => informers.list() });

    // The controllers' writes go through only while this process is sure it leads (see assertLeading).
    // Leadership is made after the controllers so that its health checks come after theirs in
    // /healthz and /livez, hence the late binding; no controller writes before it exists.
    let leadership: Leadership | undefined;
    const writeGuard = options.leaderElection.enabled ? () => leadership?.assertLeading() : undefined;
    this.controllers = await ControllerGroup.create(
      options.enabledControllers,
      this.descriptors,
      {
        client,
        informers,
        events,
        logger,
        metrics: registry,
        workqueueMetrics: new PrometheusWorkqueueMetricsProvider(registry),
        reconcileMetrics: prometheusReconcileMetrics(registry),
        values: options.values,
        identity,
      },
      this.endpoints,
      { clientFor, writeGuard },
    );
    const controllers = this.controllers;
    this.status.attach({ controllers: () => controllers.statusReports() });
    leadership = options.leaderElection.enabled
      ? new Leadership({ options, client, identity, informers, events, endpoints: this.endpoints, logger })
      : undefined;
    const elected = leadership;
    if (elected) this.status.attach({ leaderElection: () => elected.status() });

    const informersStop = new AbortController();
    await services.start({
      name: "informers",
      start: () => informers.start(informersStop.signal),
      stop: async () => {
        informersStop.abort();
        await informers.shutdown();
      },
    });

    const run = (stop: AbortSignal, abort: AbortSignal) => controllers.run(stop, abort);
    if (!leadership) return runUntilTerminated(run, terminate, options.controllerShutdownTimeoutMs, logger);
    return leadership.run(run, terminate);
  }

  /** HTTPS on --secure-port: every path but the always-allowed ones authenticated and authorized through the API server. */
  private httpsService(client: KubeClient) {
    let server: RunningServer | undefined;
    return {
      name: "https",
      start: async () => {
        const endpoints = createHttpApp(this.endpoints).fetch;
        server = await startSecureServing({ options: this.options.serving, endpoints, client, logger: this.logger });
      },
      stop: () => server?.stop(),
    };
  }

  /** Plain HTTP on --port, for local development: nobody is asked for credentials. */
  private httpService() {
    const { address, port } = this.options.serving.insecure;
    let server: RunningServer | undefined;
    return {
      name: "http",
      start: async () => {
        server = await serve(createHttpApp(this.endpoints).fetch, address, port);
        this.logger.info({ url: server.url }, "serving plain HTTP without authentication");
      },
      stop: () => server?.stop(),
    };
  }
}
