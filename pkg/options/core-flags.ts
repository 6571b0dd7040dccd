// The flags kube-loom has whatever controllers it hosts, grouped in --help the way
// kube-controller-manager groups them. Defaults follow kube-controller-manager's.
import type { ControllerIdentity } from "./controller-selection.ts";
import { boolFlag, durationFlag, enumFlag, floatFlag, intFlag, stringFlag, stringListFlag, type FlagDefinition } from "./flag-definition.ts";
import { delegatedAuthFlags } from "./delegated-auth-flags.ts";
import { HOUR, SECOND } from "./go-duration.ts";
import { servingFlags } from "./serving-flags.ts";

const GENERIC = "Generic";
const LEADER_ELECTION = "Leader election";
const MISC = "Misc";
const LOGS = "Logs";
const GLOBAL = "Global";

/** Built per run because its help lists the registered controllers, as kube-controller-manager's does. */
export function controllersFlag(known: readonly ControllerIdentity[]): FlagDefinition<readonly string[]> {
  const all = known.map((controller) => controller.name).sort();
  const disabledByDefault = known.filter((controller) => !controller.enabledByDefault).map((controller) => controller.name).sort();
  const help = [
    "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.",
    `All controllers: ${all.join(", ")}`,
    ...(disabledByDefault.length > 0 ? [`Disabled-by-default controllers: ${disabledByDefault.join(", ")}`] : []),
  ].join("\n");
  return stringListFlag({ name: "controllers", group: GENERIC, default: ["*"], help });
}

export const configFileFlag = stringFlag({
  name: "config",
  group: GENERIC,
  default: "",
  help: "Path to a YAML file of flag values, keyed by flag name (e.g. 'kube-api-qps: 50'). Flags given on the command line win over the file.",
});

export const minResyncPeriodFlag = durationFlag({
  name: "min-resync-period",
  group: GENERIC,
  default: 12 * HOUR,
  min: 0,
  help: "Informers replay their whole cache to the controllers after a random time between this and twice this.",
});

export const shutdownGracePeriodFlag = durationFlag({
  name: "shutdown-grace-period",
  group: GENERIC,
  default: 30 * SECOND,
  min: 0,
  help: "How long to let controllers finish in-flight work after SIGTERM or SIGINT before exiting anyway.",
});

export const apiserverWaitTimeoutFlag = durationFlag({
  name: "apiserver-wait-timeout",
  group: GENERIC,
  default: 60 * SECOND,
  min: 0,
  help: "How long start-up waits for the API server's /healthz to report ok before giving up.",
});

export const useServiceAccountCredentialsFlag = boolFlag({
  name: "use-service-account-credentials",
  group: GENERIC,
  default: false,
  help: "Run each controller as its own ServiceAccount, in the leader election namespace, with tokens from the TokenRequest API: RBAC grants each only what it needs, and the audit log names the controller behind every request.",
});

export const leaderElectFlag = boolFlag({
  name: "leader-elect",
  group: LEADER_ELECTION,
  default: true,
  help: "Run controllers only while holding the leader Lease, so that several replicas can run and exactly one acts. Keep it on unless one process is guaranteed.",
});

// The Lease object stores its duration in whole seconds, so less than one second cannot be expressed.
export const leaseDurationFlag = durationFlag({
  name: "leader-elect-lease-duration",
  group: LEADER_ELECTION,
  default: 15 * SECOND,
  min: SECOND,
  help: "How long a standby waits after it last saw the Lease change before it takes the Lease over: about the longest a dead leader goes unreplaced.",
});

export const renewDeadlineFlag = durationFlag({
  name: "leader-elect-renew-deadline",
  group: LEADER_ELECTION,
  default: 10 * SECOND,
  min: 0,
  exclusiveMin: true,
  help: "How long the leader keeps trying to renew the Lease before it gives up leading and exits. Shorter than the lease duration.",
});

export const retryPeriodFlag = durationFlag({
  name: "leader-elect-retry-period",
  group: LEADER_ELECTION,
  default: 2 * SECOND,
  min: 0,
  exclusiveMin: true,
  help: "Time between two attempts to take or renew the Lease.",
});

export const resourceLockFlag = enumFlag({
  name: "leader-elect-resource-lock",
  group: LEADER_ELECTION,
  choices: ["leases"],
  default: "leases",
  help: "Kind of object the election is held on; only leases is supported.",
});

export const resourceNameFlag = stringFlag({
  name: "leader-elect-resource-name",
  group: LEADER_ELECTION,
  default: "kube-loom",
  help: "Name of the Lease the election is held on.",
});

export const resourceNamespaceFlag = stringFlag({
  name: "leader-elect-resource-namespace",
  group: LEADER_ELECTION,
  default: "kube-system",
  help: "Namespace of the Lease the election is held on.",
});

export const kubeconfigFlag = stringFlag({
  name: "kubeconfig",
  group: MISC,
  default: "",
  help: "kubeconfig file naming the API server and the credentials to reach it.",
});

export const masterFlag = stringFlag({
  name: "master",
  group: MISC,
  default: "",
  help: "API server URL; replaces the server the kubeconfig names.",
});

export const contextFlag = stringFlag({
  name: "context",
  group: MISC,
  default: "",
  help: "The name of the kubeconfig context to use (default: the kubeconfig's current context).",
});

// kube-controller-manager accepts any float; zero or less would mean "no client-side limit" there, which is rarely meant.
export const kubeApiQpsFlag = floatFlag({
  name: "kube-api-qps",
  group: MISC,
  default: 20,
  min: 0,
  exclusiveMin: true,
  help: "Requests per second each client may send to the API server on average.",
});

export const kubeApiBurstFlag = intFlag({
  name: "kube-api-burst",
  group: MISC,
  default: 30,
  min: 0,
  help: "Requests each client may send at once above --kube-api-qps.",
});

export const kubeApiTimeoutFlag = durationFlag({
  name: "kube-api-timeout",
  group: MISC,
  default: 30 * SECOND,
  min: 0,
  help: "How long to wait for the API server to start answering a request, and for a stalled answer to move again. Watches stay open. 0: no limit.",
});

export const verbosityFlag = intFlag({
  name: "v",
  shorthand: "v",
  group: LOGS,
  default: 0,
  min: 0,
  max: 10,
  help: "How much to log: 0-3 info, 4-5 debug, 6 and more trace.",
});

export const logFormatFlag = enumFlag({
  name: "log-format",
  group: LOGS,
  choices: ["json", "text"],
  default: "json",
  help: "json for log collectors, text for people.",
});

export const helpFlag = boolFlag({ name: "help", shorthand: "h", group: GLOBAL, default: false, help: "Print this help and exit." });

export const versionFlag = boolFlag({ name: "version", group: GLOBAL, default: false, help: "Print the version and exit." });

/** The core flags listed before the controllers' own, in --help group order, after --controllers. */
export const coreFlags: readonly FlagDefinition[] = [
  configFileFlag,
  minResyncPeriodFlag,
  shutdownGracePeriodFlag,
  apiserverWaitTimeoutFlag,
  useServiceAccountCredentialsFlag,
  leaderElectFlag,
  leaseDurationFlag,
  renewDeadlineFlag,
  retryPeriodFlag,
  resourceLockFlag,
  resourceNameFlag,
  resourceNamespaceFlag,
  ...servingFlags,
  ...delegatedAuthFlags,
  kubeconfigFlag,
  masterFlag,
  contextFlag,
  kubeApiQpsFlag,
  kubeApiBurstFlag,
  kubeApiTimeoutFlag,
  verbosityFlag,
  logFormatFlag,
];

/** Listed after the controllers' flags, as cobra lists them last. */
export const globalFlags: readonly FlagDefinition[] = [helpFlag, versionFlag];

/** Flags that only make sense on the command line, so a --config file may not set them. */
export const commandLineOnlyFlags: ReadonlySet<FlagDefinition> = new Set([configFileFlag, helpFlag, versionFlag]);
