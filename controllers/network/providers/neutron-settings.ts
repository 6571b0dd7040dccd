// The Neutron provider's settings: flags (or the --config file), overridden by the keys of an
// optional Secret, which alone holds the password or application credential secret. Checked
// as a whole, with one-line errors that name the setting and where it came from.
import type { FlagDefinition } from "../../../pkg/options/flag-definition.ts";
import type { FlagValues } from "../../../pkg/options/flag-values.ts";
import {
  neutronApplicationCredentialIDFlag,
  neutronAuthTypeFlag,
  neutronAuthTypes,
  neutronAuthURLFlag,
  neutronCredentialsSecretFlag,
  neutronEndpointFlag,
  neutronInterfaceFlag,
  neutronInterfaces,
  neutronProjectDomainNameFlag,
  neutronProjectIDFlag,
  neutronProjectNameFlag,
  neutronRegionFlag,
  neutronRequestTimeoutFlag,
  neutronSettingFlags,
  neutronUserDomainNameFlag,
  neutronUsernameFlag,
} from "../flags.ts";
import { KeystoneAuthenticator, noAuthentication, type NeutronAuthenticator } from "./keystone-auth.ts";
import { ExpectedError } from "../../../pkg/errors/expected-error.ts";

/** Setting name (a flag's name without "neutron-", as Secret keys spell it) to value. */
export type NeutronSettings = Record<string, string>;

export interface SecretReference {
  namespace: string;
  name: string;
}

/** Keys only a Secret may hold. */
const secretOnlyKeys = ["password", "application-credential-secret"] as const;
const settingKey = (flag: FlagDefinition) => flag.name.replace(/^neutron-/, "");

/** A bad setting; the message is one line naming the setting and its value. */
export class NeutronSettingsError extends ExpectedError {
  override readonly name = "NeutronSettingsError";
}

export function settingsFromFlags(values: FlagValues): NeutronSettings {
  return Object.fromEntries(neutronSettingFlags.map((flag) => [settingKey(flag), String(values.get(flag))]));
}

/** undefined when no Secret is configured. */
export function credentialsSecret(values: FlagValues): SecretReference | undefined {
  const text = values.get(neutronCredentialsSecretFlag).trim();
  if (text === "") return undefined;
  const [namespace, name, ...rest] = text.split("/");
  if (!namespace || !name || rest.length > 0) {
    throw new NeutronSettingsError(`--${neutronCredentialsSecretFlag.name}=${JSON.stringify(text)} is not of the form namespace/name`);
  }
  return { namespace, name };
}

/** The Secret's keys on top of the flags; unknown keys are refused, so a typo is not silently ignored. */
export function withSecretData(settings: NeutronSettings, data: Record<string, string>, secret: SecretReference): NeutronSettings {
  const allowed = new Set<string>([...neutronSettingFlags.map(settingKey), ...secretOnlyKeys]);
  for (const key of Object.keys(data)) {
    if (!allowed.has(key)) {
      throw new NeutronSettingsError(
        `Secret ${secret.namespace}/${secret.name} has unknown key ${JSON.stringify(key)}; allowed: ${[...allowed].sort().join(", ")}`,
      );
    }
  }
  return { ...settings, ...Object.fromEntries(Object.entries(data).map(([key, value]) => [key, value.trim()])) };
}

export interface NeutronConnection {
  endpoint: string;
  auth: NeutronAuthenticator;
  /** noauth only: the project new resources belong to. */
  projectID?: string;
  timeoutMs: number;
}

/** Checks that the settings fit together and builds the authenticator they describe. */
export function neutronConnection(settings: NeutronSettings, values: FlagValues): NeutronConnection {
  const get = (flag: FlagDefinition) => settings[settingKey(flag)] ?? "";
  const timeoutMs = values.get(neutronRequestTimeoutFlag);
  const authType = oneOf(get(neutronAuthTypeFlag), neutronAuthTypes, "auth-type");
  const endpointInterface = oneOf(get(neutronInterfaceFlag), neutronInterfaces, "interface");
  const require = (...flags: FlagDefinition[]) => {
    for (const flag of flags) if (get(flag) === "") throw missing(`--${flag.name}`, authType);
  };
  const requireSecretKey = (key: (typeof secretOnlyKeys)[number]) => {
    if (!settings[key]) throw missing(`the ${JSON.stringify(key)} key of --${neutronCredentialsSecretFlag.name}`, authType);
  };
  const endpoint = get(neutronEndpointFlag);
  if (endpoint !== "" && !isHttpURL(endpoint)) {
    throw new NeutronSettingsError(`--${neutronEndpointFlag.name}=${JSON.stringify(endpoint)} is not an http(s) URL`);
  }
  if (authType === "noauth") {
    require(neutronEndpointFlag, neutronProjectIDFlag);
    return { endpoint, auth: noAuthentication, projectID: get(neutronProjectIDFlag), timeoutMs };
  }
  require(neutronAuthURLFlag);
  const authURL = get(neutronAuthURLFlag);
  if (!isHttpURL(authURL)) throw new NeutronSettingsError(`--${neutronAuthURLFlag.name}=${JSON.stringify(authURL)} is not an http(s) URL`);
  const common = { authURL, endpointInterface, timeoutMs, ...(get(neutronRegionFlag) ? { region: get(neutronRegionFlag) } : {}) };
  if (authType === "v3applicationcredential") {
    require(neutronApplicationCredentialIDFlag);
    requireSecretKey("application-credential-secret");
    const credentials = {
      type: "v3applicationcredential" as const,
      applicationCredentialID: get(neutronApplicationCredentialIDFlag),
      applicationCredentialSecret: settings["application-credential-secret"] ?? "",
    };
    return { endpoint, auth: new KeystoneAuthenticator({ ...common, credentials }), timeoutMs };
  }
  require(neutronUsernameFlag, neutronUserDomainNameFlag);
  if (get(neutronProjectIDFlag) === "") require(neutronProjectNameFlag, neutronProjectDomainNameFlag);
  requireSecretKey("password");
  const credentials = {
    type: "password" as const,
    username: get(neutronUsernameFlag),
    userDomainName: get(neutronUserDomainNameFlag),
    password: settings.password ?? "",
    ...(get(neutronProjectIDFlag)
      ? { projectID: get(neutronProjectIDFlag) }
      : { projectName: get(neutronProjectNameFlag), projectDomainName: get(neutronProjectDomainNameFlag) }),
  };
  return { endpoint, auth: new KeystoneAuthenticator({ ...common, credentials }), timeoutMs };
}

function oneOf<const Choice extends string>(value: string, choices: readonly Choice[], key: string): Choice {
  const choice = choices.find((candidate) => candidate === value);
  if (choice === undefined) throw new NeutronSettingsError(`${key} ${JSON.stringify(value)} is not one of: ${choices.join(", ")}`);
  return choice;
}

function missing(what: string, authType: string): NeutronSettingsError {
  return new NeutronSettingsError(`${what} is required with --${neutronAuthTypeFlag.name}=${authType}`);
}

function isHttpURL(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
