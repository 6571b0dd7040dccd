// The typed result of parsing: the core settings main needs, the enabled controllers, and the
// accessor controllers use to read their own flags.
import type { ApiContentType } from "../kube/protobuf/media-types.ts";
import {
  apiserverWaitTimeoutFlag,
  configFileFlag,
  contextFlag,
  controllerShutdownTimeoutFlag,
  kubeApiBurstFlag,
  kubeApiContentTypeFlag,
  kubeApiQpsFlag,
  kubeApiTimeoutFlag,
  kubeconfigFlag,
  leaderElectFlag,
  leaseDurationFlag,
  logFormatFlag,
  masterFlag,
  minResyncPeriodFlag,
  renewDeadlineFlag,
  type ProgramFlags,
  resourceLockFlag,
  retryPeriodFlag,
  shutdownGracePeriodFlag,
  useServiceAccountCredentialsFlag,
  verbosityFlag,
  warmStandbyFlag,
} from "./core-flags.ts";
import type { FlagValues } from "./flag-values.ts";
import { validateLeaderElection, type LeaderElectionOptions } from "./leader-election-validation.ts";
import { readShardingOptions, type ShardingOptions } from "./sharding-options.ts";
import { readServingOptions, type ServingOptions, unlessEmpty } from "./serving-options.ts";

/** How to reach the API server; the first three map onto the kube client's config sources. */
export interface ConnectionOptions {
  kubeconfig: string | undefined;
  master: string | undefined;
  context: string | undefined;
  qps: number;
  burst: number;
  /** Per-request timeout, watches excluded; 0 means none. */
  requestTimeoutMs: number;
  /** --kube-api-content-type. */
  contentType: ApiContentType;
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
  /** How long stopping controllers may take before their work is abandoned; undefined: no limit. */
  controllerShutdownTimeoutMs: number | undefined;
  apiserverWaitTimeoutMs: number;
  /** Each controller acts as its own ServiceAccount (in the leader election namespace). */
  useServiceAccountCredentials: boolean;
  leaderElection: LeaderElectionOptions;
  /** A standby runs its informers before it leads (--leader-elect-warm-standby); otherwise they start once it leads. */
  warmStandby: boolean;
  /** As a member of a shard ring (--shard-ring), which takes the place of leader election; undefined: the singleton. */
  sharding: ShardingOptions | undefined;
  serving: ServingOptions;
  connection: ConnectionOptions;
  logging: LoggingOptions;
  /** Every flag's value, core and controllers' alike: `values.get(someFlag)`. */
  values: FlagValues;
}

/**
 * Reads the core settings out of the parsed values; throws UsageError when they do not fit
 * together. `own`: the program's own flags, the ones `values` was parsed with.
 */
export function readOptions(values: FlagValues, enabledControllers: readonly string[], own: ProgramFlags): Options {
  const sharding = readShardingOptions(values);
  const leaderElection: LeaderElectionOptions = {
    // A shard ring takes the place of the election; its timing flags still apply, to the member Leases.
    enabled: values.get(leaderElectFlag) && sharding === undefined,
    leaseDurationMs: values.get(leaseDurationFlag),
    renewDeadlineMs: values.get(renewDeadlineFlag),
    retryPeriodMs: values.get(retryPeriodFlag),
    resourceLock: values.get(resourceLockFlag),
    resourceName: values.get(own.lease.name),
    resourceNamespace: values.get(own.lease.namespace),
  };
  validateLeaderElection(sharding ? { ...leaderElection, enabled: true } : leaderElection);
  return {
    enabledControllers,
    configFile: unlessEmpty(values.get(configFileFlag)),
    minResyncPeriodMs: values.get(minResyncPeriodFlag),
    controllerShutdownTimeoutMs: controllerShutdownTimeout(values),
    apiserverWaitTimeoutMs: values.get(apiserverWaitTimeoutFlag),
    useServiceAccountCredentials: values.get(useServiceAccountCredentialsFlag),
    leaderElection,
    warmStandby: values.get(warmStandbyFlag),
    sharding,
    serving: readServingOptions(values, own.delegatedAuthKubeconfigs),
    connection: {
      kubeconfig: unlessEmpty(values.get(kubeconfigFlag)),
      master: unlessEmpty(values.get(masterFlag)),
      context: unlessEmpty(values.get(contextFlag)),
      qps: values.get(kubeApiQpsFlag),
      burst: values.get(kubeApiBurstFlag),
      requestTimeoutMs: values.get(kubeApiTimeoutFlag),
      contentType: values.get(kubeApiContentTypeFlag),
    },
    logging: { verbosity: values.get(verbosityFlag), format: values.get(logFormatFlag) },
    values,
  };
}

/** --controller-shutdown-timeout (0: no limit), or the deprecated --shutdown-grace-period when only that was given. */
function controllerShutdownTimeout(values: FlagValues): number | undefined {
  if (values.isSet(shutdownGracePeriodFlag) && !values.isSet(controllerShutdownTimeoutFlag)) return values.get(shutdownGracePeriodFlag);
  const timeoutMs = values.get(controllerShutdownTimeoutFlag);
  return timeoutMs === 0 ? undefined : timeoutMs;
}
