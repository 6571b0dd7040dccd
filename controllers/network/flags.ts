// The network controller's flags. Every one can also be set in the --config file under its
// name; the Neutron settings can come from a Secret too (see neutron-settings.ts).
import type { FlagDefinition } from "../../pkg/options/flag-definition.ts";
import { maxWorkers } from "../../pkg/controller/controller.ts";
import { flagGroup } from "../../pkg/options/flag-group.ts";
import { MINUTE, SECOND } from "../../pkg/options/go-duration.ts";

const network = flagGroup("Network controller");
const neutron = flagGroup("Network controller: Neutron provider");

export const networkProviderFlag = network.enum("network-provider", ["memory", "neutron"],
  "Where Network objects are realised: 'memory' keeps them in this process (no cloud needed), 'neutron' creates them in OpenStack Neutron.");

// At most maxWorkers, where kube-controller-manager takes any int32 (README, "Differences").
export const concurrentNetworkSyncsFlag = network.int("concurrent-network-syncs", 5,
  "Networks synced at the same time: more react faster, at the cost of load on the provider.", { min: 1, max: maxWorkers });

export const networkResyncPeriodFlag = network.duration("network-resync-period", 5 * MINUTE,
  "How often every Network is compared with its provider network again, repairing changes made behind the controller's back. 0 turns this off.", { min: 0 });

export const neutronEndpointFlag = neutron.string("neutron-endpoint", "",
  "Neutron's URL, e.g. http://127.0.0.1:9696. Empty: the 'network' endpoint of Keystone's service catalog.");

export const neutronAuthTypes = ["password", "v3applicationcredential", "noauth"] as const;
export const neutronAuthTypeFlag = neutron.enum("neutron-auth-type", neutronAuthTypes,
  "How to authenticate to Neutron: a Keystone v3 password, a Keystone v3 application credential, or nothing (a Neutron with auth_strategy = noauth; needs --neutron-project-id).");

export const neutronAuthURLFlag = neutron.string("neutron-auth-url", "", "Keystone's URL, e.g. https://keystone.example:5000/v3.");

export const neutronUsernameFlag = neutron.string("neutron-username", "", "Keystone user name (password auth).");

export const neutronUserDomainNameFlag = neutron.string("neutron-user-domain-name", "Default", "Keystone domain of --neutron-username.");

export const neutronProjectIDFlag = neutron.string("neutron-project-id", "",
  "Project that owns the networks: the token's scope with password auth, or the project_id sent with noauth.");

export const neutronProjectNameFlag = neutron.string("neutron-project-name", "", "Project to scope the token to when --neutron-project-id is not set (password auth).");

export const neutronProjectDomainNameFlag = neutron.string("neutron-project-domain-name", "Default", "Keystone domain of --neutron-project-name.");

export const neutronApplicationCredentialIDFlag = neutron.string("neutron-application-credential-id", "",
  "Keystone application credential id (v3applicationcredential auth); its secret comes from --neutron-credentials-secret.");

export const neutronRegionFlag = neutron.string("neutron-region", "", "Region of the catalog endpoint to use; empty: the first one.");

export const neutronInterfaces = ["public", "internal", "admin"] as const;
export const neutronInterfaceFlag = neutron.enum("neutron-interface", neutronInterfaces, "Interface of the catalog endpoint to use.");

export const neutronCredentialsSecretFlag = neutron.string("neutron-credentials-secret", "",
  "A Secret, as namespace/name, holding 'password' or 'application-credential-secret', and optionally any other Neutron setting under its flag name without the 'neutron-' prefix (e.g. 'auth-url'); the Secret's values win over flags.");

export const neutronRequestTimeoutFlag = neutron.duration("neutron-request-timeout", 30 * SECOND,
  "How long one request to Neutron or Keystone may take before it counts as unavailable.", { min: 0, exclusiveMin: true });

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

/** The controller's flags but its workers flag (--concurrent-network-syncs), which `workers()` adds. */
export const networkControllerFlags: readonly FlagDefinition[] = [
  networkProviderFlag,
  networkResyncPeriodFlag,
  ...neutronSettingFlags,
  neutronCredentialsSecretFlag,
  neutronRequestTimeoutFlag,
];
