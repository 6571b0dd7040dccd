// The network controller's flags. Every one can also be set in the --config file under its
// name; the Neutron settings can come from a Secret too (see neutron-settings.ts).
import { durationFlag, enumFlag, intFlag, stringFlag, type FlagDefinition, type FlagSpec } from "../../pkg/options/flag-definition.ts";
import { MINUTE, SECOND } from "../../pkg/options/go-duration.ts";

const NETWORK = "Network controller";
const NEUTRON = "Network controller: Neutron provider";

/** The Neutron provider's text settings, all in one --help group and empty unless a default is given. */
function neutronStringFlag(spec: Omit<FlagSpec<string>, "group" | "default"> & { default?: string }): FlagDefinition<string> {
  return stringFlag({ ...spec, group: NEUTRON, default: spec.default ?? "" });
}

export const networkProviderFlag = enumFlag({
  name: "network-provider",
  group: NETWORK,
  choices: ["memory", "neutron"],
  default: "memory",
  help: "Where Network objects are realised: 'memory' keeps them in this process (no cloud needed), 'neutron' creates them in OpenStack Neutron.",
});

export const concurrentNetworkSyncsFlag = intFlag({
  name: "concurrent-network-syncs",
  group: NETWORK,
  default: 5,
  min: 1,
  help: "Networks synced at the same time: more react faster, at the cost of load on the provider.",
});

export const networkResyncPeriodFlag = durationFlag({
  name: "network-resync-period",
  group: NETWORK,
  default: 5 * MINUTE,
  min: 0,
  help: "How often every Network is compared with its provider network again, repairing changes made behind the controller's back. 0 turns this off.",
});

export const neutronEndpointFlag = neutronStringFlag({
  name: "neutron-endpoint",
  help: "Neutron's URL, e.g. http://127.0.0.1:9696. Empty: the 'network' endpoint of Keystone's service catalog.",
});

export const neutronAuthTypes = ["password", "v3applicationcredential", "noauth"] as const;
export const neutronAuthTypeFlag = enumFlag({
  name: "neutron-auth-type",
  group: NEUTRON,
  choices: neutronAuthTypes,
  default: "password",
  help: "How to authenticate to Neutron: a Keystone v3 password, a Keystone v3 application credential, or nothing (a Neutron with auth_strategy = noauth; needs --neutron-project-id).",
});

export const neutronAuthURLFlag = neutronStringFlag({ name: "neutron-auth-url", help: "Keystone's URL, e.g. https://keystone.example:5000/v3." });

export const neutronUsernameFlag = neutronStringFlag({ name: "neutron-username", help: "Keystone user name (password auth)." });

export const neutronUserDomainNameFlag = neutronStringFlag({ name: "neutron-user-domain-name", default: "Default", help: "Keystone domain of --neutron-username." });

export const neutronProjectIDFlag = neutronStringFlag({
  name: "neutron-project-id",
  help: "Project that owns the networks: the token's scope with password auth, or the project_id sent with noauth.",
});

export const neutronProjectNameFlag = neutronStringFlag({ name: "neutron-project-name", help: "Project to scope the token to when --neutron-project-id is not set (password auth)." });

export const neutronProjectDomainNameFlag = neutronStringFlag({ name: "neutron-project-domain-name", default: "Default", help: "Keystone domain of --neutron-project-name." });

export const neutronApplicationCredentialIDFlag = neutronStringFlag({
  name: "neutron-application-credential-id",
  help: "Keystone application credential id (v3applicationcredential auth); its secret comes from --neutron-credentials-secret.",
});

export const neutronRegionFlag = neutronStringFlag({ name: "neutron-region", help: "Region of the catalog endpoint to use; empty: the first one." });

export const neutronInterfaces = ["public", "internal", "admin"] as const;
export const neutronInterfaceFlag = enumFlag({
  name: "neutron-interface",
  group: NEUTRON,
  choices: neutronInterfaces,
  default: "public",
  help: "Interface of the catalog endpoint to use.",
});

export const neutronCredentialsSecretFlag = neutronStringFlag({
  name: "neutron-credentials-secret",
  help: "A Secret, as namespace/name, holding 'password' or 'application-credential-secret', and optionally any other Neutron setting under its flag name without the 'neutron-' prefix (e.g. 'auth-url'); the Secret's values win over flags.",
});

export const neutronRequestTimeoutFlag = durationFlag({
  name: "neutron-request-timeout",
  group: NEUTRON,
  default: 30 * SECOND,
  min: 0,
  exclusiveMin: true,
  help: "How long one request to Neutron or Keystone may take before it counts as unavailable.",
});

/** The settings a Secret may override, by their flag. */
export const neutronSettingFlags = [
  neutronEndpointFlag,
  neutronAuthTypeFlag,
  neutronAuthURLFlag,
  neutronUsernameFlag,
  neutronUserDomainNameFlag,
  neutronProjectIDFlag,
  neutronProjectNameFlag,
  neutronProjectDomainNameFlag,
  neutronApplicationCredentialIDFlag,
  neutronRegionFlag,
  neutronInterfaceFlag,
] as const;

export const networkControllerFlags: readonly FlagDefinition[] = [
  networkProviderFlag,
  concurrentNetworkSyncsFlag,
  networkResyncPeriodFlag,
  ...neutronSettingFlags,
  neutronCredentialsSecretFlag,
  neutronRequestTimeoutFlag,
];
