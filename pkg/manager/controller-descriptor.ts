// How a controller plugs into the manager: its identity for --controllers, its flags, and a
// constructor that takes shared machinery from the context. Built-in controllers and users'
// own controllers register the same way.
import type { Registry } from "prom-client";
import type { ReconcileMetrics } from "../controller/reconcile-metrics.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { CacheSyncSource } from "../informer/wait-for-cache-sync.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/logger.ts";
import type { FlagValues } from "../options/flag-values.ts";
import type { KnownController } from "../options/parse-command-line.ts";
import type { DebugRoute } from "../server/http-app.ts";
import type { HealthCheck } from "../health/health-check.ts";
import type { ControllerReport } from "../status/status-snapshot.ts";
import type { WorkqueueMetricsProvider } from "../workqueue/metrics.ts";

export interface ControllerContext {
  client: KubeClient;
  /** The one informer factory of the process: ask it for informers in `create`, before start. */
  informers: SharedInformerFactory;
  events: EventRecorder;
  logger: Logger;
  metrics: Registry;
  /** Pass to every named workqueue so it reports workqueue_* metrics. */
  workqueueMetrics: WorkqueueMetricsProvider;
  reconcileMetrics: ReconcileMetrics;
  /** Parsed flags; read the controller's own flags with `values.get(flag)`. */
  values: FlagValues;
  /** This process's leader-election identity (hostname_uuid). */
  identity: string;
}

export interface RunningController {
  /**
   * Runs the workers while this process leads. `stop` aborting means: take no new work and
   * return once in-flight work is done. `abort` aborting means: stop at once.
   */
  run(stop: AbortSignal, abort: AbortSignal): Promise<void>;
  /**
   * The caches the controller reads. The manager calls `run` only once all of them have synced,
   * however long that takes, and /readyz fails until they have.
   */
  informers?: readonly CacheSyncSource[];
  /** Added to /healthz and /livez under the controller's name. */
  healthCheck?: HealthCheck;
  debugRoutes?: DebugRoute[];
  /** What /debug/status shows of it: its reconcile loops (ReconcileRunner.status) and any details. */
  status?(): ControllerReport;
}

export interface ControllerDescriptor extends KnownController {
  /**
   * The ServiceAccount the controller acts as under --use-service-account-credentials
   * (kube-controller-manager's names for its own controllers). Default: "<name>-controller".
   */
  serviceAccountName?: string;
  /** Builds the controller, or returns undefined (with a log line) when it cannot run in this cluster. */
  create(context: ControllerContext): Promise<RunningController | undefined>;
}
