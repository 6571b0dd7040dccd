// kube-loom's process lifecycle, modelled on kube-controller-manager with controller-runtime's
// runnable groups and graceful shutdown:
//   always:       HTTP server → (API server reachable) → event broadcaster → the Lease's informer
//                 → informers (a warm standby's, --leader-elect-warm-standby) → the runnables
//                 that need no leadership
//   while leader: informers (if not started yet), then the controllers, each once its own
//                 caches have synced
// Services stop in the reverse order once the controllers have finished; a process that lost
// its Lease skips that and exits at once.
import { combinedReconcileObserver } from "../controller/reconcile-observer.ts";
import { EventBroadcaster } from "../events/broadcaster.ts";
import { EventSinksByController } from "../events/event-sinks-by-controller.ts";
import { KubeEventSink } from "../events/kube-event-sink.ts";
import { SharedInformerFactory } from "../informer/factory.ts";
import { namespacesIn } from "../informer/index-funcs.ts";
import type { InformerSharding } from "../informer/namespace-share.ts";
import type { HashRange } from "../sharding/hash-range.ts";
import { loadClientConfig } from "../kube/client-config.ts";
import { createKubeClient, type KubeClient, withRateLimit } from "../kube/client.ts";
import { leaderElectionIdentity } from "../leaderelection/identity.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { InformerMetricsProvider } from "../informer/metrics.ts";
import type { Logger } from "../log/logger.ts";
import { createMetricsRegistry } from "../metrics/registry.ts";
import { restClientMetrics } from "../metrics/rest-client-metrics.ts";
import { versionInfoMetric } from "../metrics/version-info.ts";
import { PrometheusInformerMetricsProvider } from "../metrics/informer-metrics.ts";
import { PrometheusWorkqueueMetricsProvider } from "../metrics/workqueue-metrics.ts";
import { prometheusReconcileMetrics } from "../metrics/reconcile-metrics.ts";
import type { Options } from "../options/options.ts";
import { HealthCheckSet } from "../endpoints/health.ts";
import { createHttpApp, type HttpEndpoints } from "../endpoints/http-app.ts";
import { startSecureServing } from "../server/secure-serving.ts";
import { serve, type RunningServer } from "../server/serve.ts";
import { RecentEvents } from "../status/recent-events.ts";
import { StatusBoard } from "../status/status-board.ts";
import { emulatedKubernetesVersion, type ProgramIdentity, runtimeVersion } from "../version.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { createControllers } from "./create-controllers.ts";
import type { WriteGuard } from "../kube/rest-client.ts";
import type { NamespaceOwnership } from "../shardelection/namespace-ownership.ts";
import { Leadership } from "./leadership.ts";
import { shardRingMetrics } from "../metrics/shard-ring-metrics.ts";
import { shardRingStatus } from "../status/shard-ring-status.ts";
import { ShardMembership } from "./shard-membership.ts";
import { leaderOnlyEvents } from "./leader-only-events.ts";
import { type ExitReason, type RunControllers, runUntilTerminated } from "./shutdown.ts";
import { RunnableGroup } from "./runnable-group.ts";
import { type ClientForController, serviceAccountClients } from "./service-account-clients.ts";
import { type Service, ServiceGroup } from "./service-group.ts";
import { waitForApiServer } from "./wait-for-apiserver.ts";

export type { ExitReason } from "./shutdown.ts";

/** How the controllers are confined (see Manager.coordination). */
interface Coordination {
  writeGuard?: WriteGuard;
  /** Holds a recorder's Events to what this process may write, as `writeGuard` does its requests. */
  guardEvents: (events: EventRecorder) => EventRecorder;
  ownership?: NamespaceOwnership;
  /** The controllers' informer factory. */
  informers: SharedInformerFactory;
  /** Start the informers before the controllers may act. */
  informersFirst: boolean;
  /** Runs the controllers while this process may act; without it they run until terminated. */
  run?: (whileActing: RunControllers, terminate: AbortSignal) => Promise<ExitReason>;
}

/** Recorders over the started broadcaster: the process's own, and each controller's, written by `writer`. */
interface ManagerEvents {
  processRecorder: EventRecorder;
  recorderFor(reportingController: string, writer: KubeClient): EventRecorder;
}

export class Manager {
  private readonly endpoints: HttpEndpoints;
  private readonly identity = leaderElectionIdentity();
  private readonly recentEvents = new RecentEvents();
  private readonly status: StatusBoard;
  private readonly runnables: RunnableGroup;
  /** The Lease's and the controllers' informer factories, for the status page. */
  private readonly informerFactories: SharedInformerFactory[] = [];

  /**
   * `program` names the process wherever it names itself: /statusz, version_info, the informer_*
   * metrics' `name` label (kube-controller-manager puts its own name there too), the reporting
   * controller of its Events and the user agent of its requests.
   */
  constructor(
    private readonly program: ProgramIdentity,
    private readonly options: Options,
    private readonly descriptors: readonly ControllerDescriptor[],
    private readonly logger: Logger,
  ) {
    const metrics = createMetricsRegistry();
    const { name, version } = program;
    const binaryVersion = version.replace(/^v/, "");
    versionInfoMetric(metrics, { component: name, binary: binaryVersion, emulation: emulatedKubernetesVersion });
    this.status = new StatusBoard({ process: { identity: this.identity, version, startedAt: Date.now() }, metrics, events: this.recentEvents });
    this.endpoints = {
      healthz: new HealthCheckSet(),
      livez: new HealthCheckSet(),
      readyz: new HealthCheckSet(),
      metrics,
      status: this.status,
      debugRoutes: [],
      component: {
        name,
        startedAt: performance.timeOrigin,
        binaryVersion,
        emulationVersion: emulatedKubernetesVersion,
        runtimeVersion: runtimeVersion(),
      },
      flags: options.values.texts(),
    };
    this.runnables = new RunnableGroup(this.endpoints, logger, { warmStandby: options.warmStandby });
    // Not ready from the first request on: the server answers before the API server is even reached.
    this.endpoints.readyz.add(this.runnables.readinessCheck());
    this.status.attach({
      controllers: () => this.runnables.statusReports(),
      informers: () => this.informerFactories.flatMap((factory) => factory.list()),
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
      contentType: options.connection.contentType,
      program: this.program,
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
    const events = await this.startEvents(client, services);
    const informerMetrics = new PrometheusInformerMetricsProvider(this.endpoints.metrics);
    const coordination = await this.coordination(client, events.processRecorder, services, informerMetrics);
    const { informers } = coordination;
    const context = {
      ...this.controllerContext(informers),
      recorderFor: (reportingController: string, writer: KubeClient) => coordination.guardEvents(events.recorderFor(reportingController, writer)),
      ownership: coordination.ownership,
    };
    const controllers = await createControllers(options.enabledControllers, this.descriptors, context, {
      client,
      connection: options.connection,
      clientFor,
      writeGuard: coordination.writeGuard,
    });
    this.runnables.register(controllers);
    const startInformers = () => services.start(informersService("informers", informers));
    if (coordination.informersFirst) await startInformers();

    const always = this.runnables.run(false, terminate, terminate);
    const whileActing: RunControllers = async (stop, abort) => {
      if (!coordination.informersFirst) await startInformers();
      await this.runnables.run(true, stop, abort);
    };
    const reason = coordination.run
      ? await coordination.run(whileActing, terminate)
      : await runUntilTerminated(whileActing, terminate, options.controllerShutdownTimeoutMs, logger);
    if (reason === "terminated") await always;
    return reason;
  }

  /**
   * Where the controllers act: under leader election, only while this process is sure it leads (see
   * assertLeading); in a shard ring, only in the namespaces it holds now; otherwise everywhere. Their writes,
   * Events included, are judged the moment before they are sent.
   */
  private async coordination(
    client: KubeClient,
    /** Records the process's own Events (the Lease's), under the program's name. */
    processEvents: EventRecorder,
    services: ServiceGroup,
    metrics: InformerMetricsProvider,
  ): Promise<Coordination> {
    const { options } = this;
    if (options.sharding) return this.shardMembership(client, services, metrics);
    const informers = this.informerFactory(client, metrics);
    if (options.leaderElection.enabled) {
      const leadership = await this.leadership(client, processEvents, services, metrics);
      return {
        writeGuard: leadership.writeGuard,
        guardEvents: (recorder) => leaderOnlyEvents(recorder, () => leadership.assertLeading()),
        // A warm standby fills its caches while it waits; otherwise they start once it leads, as kube-controller-manager's do.
        informers,
        informersFirst: options.warmStandby,
        run: (whileLeading, terminate) => leadership.run(whileLeading, terminate),
      };
    }
    return { guardEvents: (recorder) => recorder, informers, informersFirst: false };
  }

  /**
   * The event broadcaster, started: what is recorded reaches the API server, each controller's Events written as
   * that controller's own identity and the process's as the process, and the status page.
   */
  private async startEvents(client: KubeClient, services: ServiceGroup): Promise<ManagerEvents> {
    const { recentEvents } = this;
    const sinks = new EventSinksByController(new KubeEventSink(client));
    const broadcaster = new EventBroadcaster({
      sink: sinks,
      reportingInstance: this.identity,
      logger: this.logger,
      observer: recentEvents,
    });
    await services.start({ name: "events", start: () => broadcaster.start(), stop: () => broadcaster.shutdown() });
    return {
      processRecorder: broadcaster.newRecorder(this.program.name),
      recorderFor: (reportingController, writer) => {
        sinks.route(reportingController, new KubeEventSink(writer));
        return broadcaster.newRecorder(reportingController);
      },
    };
  }

  private informerFactory(client: KubeClient, metrics: InformerMetricsProvider, sharding?: InformerSharding): SharedInformerFactory {
    const { connection, minResyncPeriodMs } = this.options;
    // As in kube-controller-manager, metadata-only informers (the garbage collector's monitors) list
    // through a client of their own, so their start-up burst is not spent by the other informers'.
    const metadataClient = withRateLimit(client, connection.qps, connection.burst, "metadata-informers");
    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => (scope.metadataOnly ? metadataClient : client).dynamic.listerWatcher(gvr, scope),
      // kube-controller-manager's resync: random in [min-resync-period, 2 × min-resync-period), once per factory.
      defaultResyncMs: minResyncPeriodMs * (1 + Math.random()),
      logger: this.logger,
      metrics: { provider: metrics, name: this.program.name },
      ...(sharding && { sharding }),
    });
    this.informerFactories.push(informers);
    return informers;
  }

  /**
   * The Lease campaign, with its health check and status. The Lease is followed through an
   * informer of its own, started here: it runs on every replica, before any of the controllers' informers.
   */
  private async leadership(client: KubeClient, events: EventRecorder, services: ServiceGroup, metrics: InformerMetricsProvider): Promise<Leadership> {
    const { options, identity, logger } = this;
    const leadership = new Leadership({ options, client, identity, events, metrics: this.endpoints.metrics, logger });
    const lease = this.coordinationInformers(client, metrics);
    leadership.followLease(lease);
    await services.start(informersService("lease-informer", lease));
    this.endpoints.healthz.add(leadership.healthCheck);
    this.endpoints.livez.add(leadership.healthCheck);
    this.status.attach({ leaderElection: () => leadership.status() });
    return leadership;
  }

  /**
   * The shard ring's membership, its Leases followed through an informer of their own, started here. The
   * controllers' informers cache only the namespaces of the slots it holds or is about to, and a slot is taken
   * once every one of them has its objects.
   */
  private async shardMembership(client: KubeClient, services: ServiceGroup, metrics: InformerMetricsProvider): Promise<Coordination> {
    const { options, identity, logger } = this;
    const sharding = options.sharding!;
    const status = () => membership.member.status();
    const observer = shardRingMetrics(this.endpoints.metrics, sharding.ring, status);
    // `informers` is read only once the member runs, after it is made below.
    const cached = (ranges: readonly HashRange[]) => informers.hasSyncedRanges(ranges);
    const membership: ShardMembership = new ShardMembership({ options: { ...options, sharding }, client, identity, logger, cached, observer });
    const informers: SharedInformerFactory = this.informerFactory(client, metrics, { share: membership.member.cacheShare, isNamespaced: (gvr) => client.discovery.isNamespaced(gvr) });
    this.status.attach({ shardRing: () => shardRingStatus(status(), knownNamespaces(informers), (ns) => membership.member.holds(ns)) });
    const ring = this.coordinationInformers(client, metrics);
    membership.followRing(ring);
    await services.start(informersService("shard-ring-informer", ring));
    return {
      writeGuard: membership.writeGuard,
      guardEvents: (recorder) => membership.ownedEvents(recorder),
      ownership: membership.member,
      informers,
      // Its caches fill before it holds anything: a slot is taken only once its objects are cached.
      informersFirst: true,
      run: (whileMember, terminate) => membership.run(whileMember, terminate),
    };
  }

  /** A factory of its own for the Leases that decide where this process acts: they must be followed before, and apart from, the controllers' caches. */
  private coordinationInformers(client: KubeClient, metrics: InformerMetricsProvider): SharedInformerFactory {
    const informers = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope),
      defaultResyncMs: 0,
      logger: this.logger,
      metrics: { provider: metrics, name: this.program.name },
    });
    this.informerFactories.push(informers);
    return informers;
  }

  private controllerContext(informers: SharedInformerFactory) {
    const registry = this.endpoints.metrics;
    return {
      informers,
      logger: this.logger,
      metrics: registry,
      workqueueMetrics: new PrometheusWorkqueueMetricsProvider(registry),
      reconcileObserver: combinedReconcileObserver(prometheusReconcileMetrics(registry), this.status.reconciles),
      values: this.options.values,
      identity: this.identity,
    };
  }

  /** HTTPS on --secure-port: every path but the always-allowed ones authenticated and authorized through the API server. */
  private httpsService(client: KubeClient) {
    let server: RunningServer | undefined;
    return {
      name: "https",
      start: async () => {
        const endpoints = createHttpApp(this.endpoints).fetch;
        server = await startSecureServing({ options: this.options.serving, programName: this.program.name, endpoints, client, logger: this.logger });
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

/** The namespaces the informers hold objects of. */
function knownNamespaces(informers: SharedInformerFactory): string[] {
  const namespaces = new Set<string>();
  for (const informer of informers.list()) for (const namespace of namespacesIn(informer.getIndexer())) namespaces.add(namespace);
  return [...namespaces];
}

/** Runs a factory's informers until the services stop; started once its informers have been asked for. */
function informersService(name: string, informers: SharedInformerFactory): Service {
  const stop = new AbortController();
  return {
    name,
    start: () => informers.start(stop.signal),
    stop: async () => {
      stop.abort();
      await informers.shutdown();
    },
  };
}
