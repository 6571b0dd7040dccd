// How a controller plugs into the manager: its identity for --controllers, its flags, and a
// constructor that takes shared machinery from the context. Built-in controllers and users'
// own controllers register the same way.
import type { Registry } from "prom-client";
import type { Clock } from "../clock/clock.ts";
import type { ReconcileObserver } from "../controller/reconcile-observer.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/logger.ts";
import type { FlagValues } from "../options/flag-values.ts";
import type { KnownController } from "../options/parse-command-line.ts";
import type { NamespaceOwnership } from "../shardelection/namespace-ownership.ts";
import type { WorkqueueMetricsProvider } from "../workqueue/metrics.ts";
import type { Runnable } from "./runnable.ts";

/**
 * What the manager hands a descriptor's `create`: the process's shared machinery, made for this controller.
 * Everything here may be kept and used for the controller's lifetime.
 */
export interface ControllerContext {
  /**
   * The controller's own client: its rate limit (see `ClientPolicy`), its ServiceAccount under
   * --use-service-account-credentials, and with leader election a guard that refuses writes unless the process leads.
   */
  client: KubeClient;
  /** The one informer factory of the process: ask it for informers in `create`, before start. */
  informers: SharedInformerFactory;
  /**
   * Records Events as this controller (their reporting controller is the descriptor's `reportingController`);
   * drops them while the process may not act on what they are about (not leading, or not its namespace).
   */
  events: EventRecorder;
  /** The process's logger, with `controller: <name>` on every line. */
  logger: Logger;
  /** The process's Prometheus registry (/metrics): register the controller's own metrics here. */
  metrics: Registry;
  /** Pass to every named workqueue so it reports workqueue_* metrics. */
  workqueueMetrics: WorkqueueMetricsProvider;
  /** Told of every reconcile (ReconcileRunner `observer`): the reconcile metrics and the status page together. */
  reconcileObserver: ReconcileObserver;
  /** The controller's own flags: `values.get(flag)`; reading any other flag throws. */
  values: FlagValues;
  /** This process's leader-election identity (hostname_uuid). */
  identity: string;
  /** What the controller's workqueue and reconciles tell time by. Default: the real clock; tests pass a fake. */
  clock?: Clock | undefined;
  /**
   * As a member of a shard ring (--shard-ring): which namespaces this process acts on now. Controllers made with the
   * builder follow it by themselves; one made with `Controller` passes it as its `sharding.ownership`.
   */
  ownership?: NamespaceOwnership | undefined;
}

/**
 * How the manager makes a controller's client. kube-controller-manager gives each controller a
 * client of its own, so one busy controller cannot spend another's request budget.
 */
export interface ClientPolicy {
  /** A rate limit of its own, at `qpsFactor` × --kube-api-qps with --kube-api-burst (the garbage collector's is 2). */
  ownRateLimit?:
    | {
        /** Multiplies --kube-api-qps, e.g. 2. */
        qpsFactor: number;
      }
    | undefined;
}

/**
 * A controller as the manager knows it: its names for --controllers, its flags, and how to build it.
 * `controller(name)…complete(…)` makes one; a controller the builder cannot express writes its own.
 * Pass descriptors to `runCommand`.
 */
export interface ControllerDescriptor extends KnownController {
  /**
   * The ServiceAccount the controller acts as under --use-service-account-credentials
   * (kube-controller-manager's names for its own controllers). Default: "<name>-controller".
   */
  serviceAccountName?: string;
  /**
   * The reporting controller of the Events it records, which `kubectl describe` shows as "From"
   * (kube-controller-manager's names for its own controllers). Default: "<name>-controller".
   */
  reportingController?: string;
  /** Default: the process's client, rate limit included. */
  client?: ClientPolicy;
  /** Builds the controller, or returns undefined (with a log line) when it cannot run in this cluster. */
  create(context: ControllerContext): Promise<Runnable | undefined>;
}
