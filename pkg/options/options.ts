// The typed result of parsing: the core settings main needs, the enabled controllers, and the
// accessor controllers use to read their own flags.
import {
  apiserverWaitTimeoutFlag,
  bindAddressFlag,
  configFileFlag,
  contextFlag,
  kubeApiBurstFlag,
  kubeApiQpsFlag,
  kubeApiTimeoutFlag,
  kubeconfigFlag,
  leaderElectFlag,
  leaseDurationFlag,
  logFormatFlag,
  masterFlag,
  minResyncPeriodFlag,
  portFlag,
  renewDeadlineFlag,
  resourceLockFlag,
  resourceNameFlag,
  resourceNamespaceFlag,
  retryPeriodFlag,
  shutdownGracePeriodFlag,
  verbosityFlag,
} from "./core-flags.ts";
import type { FlagValues } from "./flag-values.ts";
import { validateLeaderElection, type LeaderElectionOptions } from "./leader-election-validation.ts";

export interface ServingOptions {
  /** IP address for the plain-HTTP /healthz, /livez, /readyz and /metrics server. */
  bindAddress: string;
  /** 0 means no server. */
  port: number;
}

/** How to reach the API server; the first three map onto the kube client's config sources. */
export interface ConnectionOptions {
  kubeconfig: string | undefined;
  master: string | undefined;
  context: string | undefined;
  qps: number;
  burst: number;
  /** Per-request timeout, watches excluded; 0 means none. */
  requestTimeoutMs: number;
}

export interface LoggingOptions {
  verbosity: number;
  format: "json" | "text";
}

export interface Options {
  /** Canonical names of the controllers to run, in registration order. */
  enabledControllers: readonly string[];
  configFile: string | undefined;
  minResyncPeriodMs: number;
  shutdownGracePeriodMs: number;
  apiserverWaitTimeoutMs: number;
  leaderElection: LeaderElectionOptions;
  serving: ServingOptions;
  connection: ConnectionOptions;
  logging: LoggingOptions;
  /** Every flag's value, core and controllers' alike: `values.get(someFlag)`. */
  values: FlagValues;
}

/** Reads the core settings out of the parsed values; throws UsageError when they do not fit together. */
export function readOptions(values: FlagValues, enabledControllers: readonly string[]): Options {
  const leaderElection: LeaderElectionOptions = {
    enabled: values.get(leaderElectFlag),
    leaseDurationMs: values.get(leaseDurationFlag),
    renewDeadlineMs: values.get(renewDeadlineFlag),
    retryPeriodMs: values.get(retryPeriodFlag),
    resourceLock: values.get(resourceLockFlag),
    resourceName: values.get(resourceNameFlag),
    resourceNamespace: values.get(resourceNamespaceFlag),
  };
  validateLeaderElection(leaderElection);
  return {
    enabledControllers,
    configFile: unlessEmpty(values.get(configFileFlag)),
    minResyncPeriodMs: values.get(minResyncPeriodFlag),
    shutdownGracePeriodMs: values.get(shutdownGracePeriodFlag),
    apiserverWaitTimeoutMs: values.get(apiserverWaitTimeoutFlag),
    leaderElection,
    serving: { bindAddress: values.get(bindAddressFlag), port: values.get(portFlag) },
    connection: {
      kubeconfig: unlessEmpty(values.get(kubeconfigFlag)),
      master: unlessEmpty(values.get(masterFlag)),
      context: unlessEmpty(values.get(contextFlag)),
      qps: values.get(kubeApiQpsFlag),
      burst: values.get(kubeApiBurstFlag),
      requestTimeoutMs: values.get(kubeApiTimeoutFlag),
    },
    logging: { verbosity: values.get(verbosityFlag), format: values.get(logFormatFlag) },
    values,
  };
}

/** Go leaves unset string flags empty; here "not given" is undefined. */
function unlessEmpty(text: string): string | undefined {
  return text === "" ? undefined : text;
}
