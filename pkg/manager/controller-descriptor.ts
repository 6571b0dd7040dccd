// How a controller plugs into the manager: its identity for --controllers, its flags, and a
// constructor that takes shared machinery from the context. Built-in controllers and users'
// own controllers register the same way.
import type { Registry } from "prom-client";
import type { ReconcileObserver } from "../controller/reconcile-observer.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/logger.ts";
import type { FlagValues } from "../options/flag-values.ts";
import type { KnownController } from "../options/parse-command-line.ts";
import type { WorkqueueMetricsProvider } from "../workqueue/metrics.ts";
import type { Runnable } from "./runnable.ts";

export interface ControllerContext {
  client: KubeClient;
  /** The one informer factory of the process: ask it for informers in `create`, before start. */
  informers: SharedInformerFactory;
  events: EventRecorder;
  logger: Logger;
  metrics: Registry;
  /** Pass to every named workqueue so it reports workqueue_* metrics. */
  workqueueMetrics: WorkqueueMetricsProvider;
  /** Told of every reconcile (ReconcileRunner `observer`): the reconcile metrics and the status page together. */
  reconcileObserver: ReconcileObserver;
  /** The controller's own flags: `values.get(flag)`; reading any other flag throws. */
  values: FlagValues;
  /** This process's leader-election identity (hostname_uuid). */
  identity: string;
}

/**
 * How the manager makes a controller's client. kube-controller-manager gives each controller a
 * client of its own, so one busy controller cannot spend another's request budget.
 */
export interface ClientPolicy {
  /** A rate limit of its own, at `qpsFactor` × --kube-api-qps with --kube-api-burst (the garbage collector's is 2). */
  ownRateLimit?: { qpsFactor: number };
}

export interface ControllerDescriptor extends KnownController {
  /**
   * The ServiceAccount the controller acts as under --use-service-account-credentials
   * (kube-controller-manager's names for its own controllers). Default: "<name>-controller".
   */
  serviceAccountName?: string;
  /** Default: the process's client, rate limit included. */
  client?: ClientPolicy;
  /** Builds the controller, or returns undefined (with a log line) when it cannot run in this cluster. */
  create(context: ControllerContext): Promise<Runnable | undefined>;
}
