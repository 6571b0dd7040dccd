// The flags kube-loom has whatever controllers it hosts, grouped in --help the way
// kube-controller-manager groups them. Defaults follow kube-controller-manager's, except where
// they name the program: those flags are made per program (programFlags).
import { z } from "zod";
import { apiContentTypes } from "../kube/protobuf/media-types.ts";
import type { ControllerIdentity } from "./controller-selection.ts";
import type { FlagDefinition } from "./flag-definition.ts";
import { flagGroup } from "./flag-group.ts";
import { delegatedAuthFlags, delegatedAuthKubeconfigFlags, type DelegatedAuthKubeconfigFlags } from "./delegated-auth-flags.ts";
import { HOUR, SECOND } from "./go-duration.ts";
import type { ResolvedProgram } from "./program.ts";
import { servingFlags } from "./serving-flags.ts";

const generic = flagGroup("Generic");
const leaderElection = flagGroup("Leader election");
const sharding = flagGroup("Sharding");
const misc = flagGroup("Misc");
const logs = flagGroup("Logs");
const globals = flagGroup("Global");

/** Built per run because its help lists the registered controllers, as kube-controller-manager's does. */
export function controllersFlag(known: readonly ControllerIdentity[]): FlagDefinition<readonly string[]> {
  const all = known.map((controller) => controller.name).sort();
  const disabledByDefault = known.filter((controller) => !controller.enabledByDefault).map((controller) => controller.name).sort();
  const help = [
    "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.",
    `All controllers: ${all.join(", ")}`,
    ...(disabledByDefault.length > 0 ? [`Disabled-by-default controllers: ${disabledByDefault.join(", ")}`] : []),
  ].join("\n");
  return generic.stringList("controllers", ["*"], help);
}

export const configFileFlag = generic.string("config", "",
  "Path to a YAML file of flag values, keyed by flag name (e.g. 'kube-api-qps: 50'). Flags given on the command line win over the file.");

export const minResyncPeriodFlag = generic.duration("min-resync-period", 12 * HOUR,
  "Informers replay their whole cache to the controllers after a random time between this and twice this.", { min: 0 });

export const controllerShutdownTimeoutFlag = generic.duration("controller-shutdown-timeout", 10 * SECOND,
  "How long the controllers may take to stop after SIGTERM or SIGINT (in-flight reconciles finish, nothing new starts) before their work is abandoned and the process exits. 0: wait as long as they take.", { min: 0 });

// kube-loom's name for the same setting before kube-controller-manager 1.35 named it; its 0 keeps
// the meaning it had (abandon in-flight work at once).
export const shutdownGracePeriodFlag = generic.duration("shutdown-grace-period", 30 * SECOND,
  "How long to let controllers finish in-flight work after SIGTERM or SIGINT before exiting anyway.",
  { min: 0, deprecated: "use --controller-shutdown-timeout (default 10s; there 0 means no limit)" });

export const apiserverWaitTimeoutFlag = generic.duration("apiserver-wait-timeout", 60 * SECOND,
  "How long start-up waits for the API server's /healthz to report ok before giving up.", { min: 0 });

export const useServiceAccountCredentialsFlag = generic.bool("use-service-account-credentials", false,
  "Run each controller as its own ServiceAccount, in the leader election namespace, with tokens from the TokenRequest API: RBAC grants each only what it needs, and the audit log names the controller behind every request.");

export const leaderElectFlag = leaderElection.bool("leader-elect", true,
  "Run controllers only while holding the leader Lease, so that several replicas can run and exactly one acts. Keep it on unless one process is guaranteed.");

// The Lease object stores its duration in whole seconds, so less than one second cannot be expressed.
export const leaseDurationFlag = leaderElection.duration("leader-elect-lease-duration", 15 * SECOND,
  "How long a standby waits after it last saw the Lease change before it takes the Lease over: about the longest a dead leader goes unreplaced.", { min: SECOND });

export const renewDeadlineFlag = leaderElection.duration("leader-elect-renew-deadline", 10 * SECOND,
  "How long the leader keeps trying to renew the Lease before it gives up leading and exits. Shorter than the lease duration.", { min: 0, exclusiveMin: true });

export const retryPeriodFlag = leaderElection.duration("leader-elect-retry-period", 2 * SECOND,
  "Time between two attempts to take or renew the Lease.", { min: 0, exclusiveMin: true });

export const resourceLockFlag = leaderElection.enum("leader-elect-resource-lock", ["leases"],
  "Kind of object the election is held on; only leases is supported.");

/** The Lease flags, whose defaults come from the program, so that two programs elect on two Leases. */
export interface LeaseFlags {
  name: FlagDefinition<string>;
  namespace: FlagDefinition<string>;
}

function leaseFlags(program: ResolvedProgram): LeaseFlags {
  return {
    name: leaderElection.string("leader-elect-resource-name", program.leaseName, "Name of the Lease the election is held on."),
    namespace: leaderElection.string("leader-elect-resource-namespace", program.leaseNamespace, "Namespace of the Lease the election is held on."),
  };
}

// kube-controller-manager has no such setting: it starts its informers only once elected.
// controller-runtime's EnableWarmup does the same for its controllers' sources.
export const warmStandbyFlag = leaderElection.bool("leader-elect-warm-standby", true,
  "A standby fills and follows the caches of its controllers while it waits for the Lease, so it reconciles as soon as it takes over, without listing again; it writes nothing until then. Costs the memory of those caches on every replica. false: start the informers only once this process leads.");

// kube-controller-manager has no sharding; this mode is kube-loom's own (README, "Differences").
export const shardRingFlag = sharding.string("shard-ring", "",
  "Run as one member of the named shard ring instead of electing a leader: every replica acts at once, each on its own share of the namespaces, handed over between replicas as they come and go. Members hold Leases labelled with the ring's name in --leader-elect-resource-namespace, timed by the --leader-elect-* durations. Empty: one replica acts, chosen by leader election.");

export const kubeconfigFlag = misc.string("kubeconfig", "", "kubeconfig file naming the API server and the credentials to reach it.");

export const masterFlag = misc.string("master", "", "API server URL; replaces the server the kubeconfig names.");

export const contextFlag = misc.string("context", "", "The name of the kubeconfig context to use (default: the kubeconfig's current context).");

// kube-controller-manager accepts any float; zero or less would mean "no client-side limit" there, which is rarely meant.
export const kubeApiQpsFlag = misc.float("kube-api-qps", 20,
  "Requests per second each client may send to the API server on average.", { min: 0, exclusiveMin: true });

export const kubeApiBurstFlag = misc.int("kube-api-burst", 30, "Requests each client may send at once above --kube-api-qps.", { min: 0 });

export const kubeApiTimeoutFlag = misc.duration("kube-api-timeout", 30 * SECOND,
  "How long to wait for the API server to start answering a request, and for a stalled answer to move again (a small answer, up to 64 KiB: to arrive whole). Watches stay open. 0: no limit.", { min: 0 });

// kube-controller-manager takes any media type here; these two are the ones the API server answers in.
export const kubeApiContentTypeFlag = misc.enum("kube-api-content-type", apiContentTypes,
  "The encoding asked of the API server for built-in resources (JSON is still accepted in answer). Custom resources are always read as JSON, except their metadata.");

export const verbosityFlag = logs.int("v", 0, "How much to log: 0-3 info, 4-5 debug, 6 and more trace.", { shorthand: "v", min: 0, max: 10 });

export const logFormatFlag = logs.enum("log-format", ["json", "text"], "json for log collectors, text for people.");

export const helpFlag = globals.bool("help", false, "Print this help and exit.", { shorthand: "h" });

const versionBoolFlag = globals.bool("version", false, "Print the version and exit; --version=raw prints the full version information.");

// As kube-controller-manager's: a boolean that also takes "raw".
export const versionFlag: FlagDefinition<boolean | "raw"> = Object.freeze({
  ...versionBoolFlag,
  expected: "true, false or raw",
  schema: z.union([z.literal("raw"), versionBoolFlag.schema]),
  text: String,
  combine: (_earlier: boolean | "raw", later: boolean | "raw") => later,
});

/**
 * The core flags whose default or help names the program, made for each program (never shared
 * through a module's state), so that one program's defaults cannot leak into another's.
 */
export interface ProgramFlags {
  lease: LeaseFlags;
  delegatedAuthKubeconfigs: DelegatedAuthKubeconfigFlags;
}

export function programFlags(program: ResolvedProgram): ProgramFlags {
  return { lease: leaseFlags(program), delegatedAuthKubeconfigs: delegatedAuthKubeconfigFlags(program.name) };
}

/** The core flags listed before the controllers' own, in --help group order, after --controllers. */
export function coreFlags(own: ProgramFlags): readonly FlagDefinition[] {
  return [
    configFileFlag,
    minResyncPeriodFlag,
    controllerShutdownTimeoutFlag,
    shutdownGracePeriodFlag,
    apiserverWaitTimeoutFlag,
    useServiceAccountCredentialsFlag,
    leaderElectFlag,
    leaseDurationFlag,
    renewDeadlineFlag,
    retryPeriodFlag,
    resourceLockFlag,
    own.lease.name,
    own.lease.namespace,
    warmStandbyFlag,
    shardRingFlag,
    ...servingFlags,
    ...delegatedAuthFlags(own.delegatedAuthKubeconfigs),
    kubeconfigFlag,
    masterFlag,
    contextFlag,
    kubeApiQpsFlag,
    kubeApiBurstFlag,
    kubeApiTimeoutFlag,
    kubeApiContentTypeFlag,
    verbosityFlag,
    logFormatFlag,
  ];
}

/** Listed after the controllers' flags, as cobra lists them last. */
export const globalFlags: readonly FlagDefinition[] = [helpFlag, versionFlag];

/** Flags that only make sense on the command line, so a --config file may not set them. */
export const commandLineOnlyFlags: ReadonlySet<FlagDefinition> = new Set([configFileFlag, helpFlag, versionFlag]);
