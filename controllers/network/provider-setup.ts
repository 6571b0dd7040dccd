// Picks and builds the network provider the flags ask for. Settings given only as flags are
// checked at start-up (a mistake stops kube-loom with one line, exit code 2); settings that
// involve a Secret are read, checked and re-read at run time, where a mistake shows in the
// Networks' status instead.
import type { Registry } from "prom-client";
import { isNotFound } from "../../pkg/kube/errors.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { FlagValues } from "../../pkg/options/flag-values.ts";
import { UsageError } from "../../pkg/options/usage-error.ts";
import { networkProviderFlag } from "./flags.ts";
import { deferredNetworkProvider } from "./providers/deferred-provider.ts";
import { instrumentedNetworkProvider } from "./providers/instrumented-provider.ts";
import { KeystoneAuthError } from "./providers/keystone-auth.ts";
import { MemoryNetworkProvider } from "./providers/memory-provider.ts";
import { NeutronApiError, NeutronClient } from "./providers/neutron-client.ts";
import { NeutronNetworkProvider } from "./providers/neutron-provider.ts";
import {
  credentialsSecret,
  neutronConnection,
  NeutronSettingsError,
  settingsFromFlags,
  withSecretData,
  type NeutronSettings,
  type SecretReference,
} from "./providers/neutron-settings.ts";
import type { NetworkProvider } from "./providers/provider.ts";

export interface ProviderSetupContext {
  client: KubeClient;
  values: FlagValues;
  metrics: Registry;
}

/** The configured provider, counting its operations in `metrics`; throws UsageError for bad flags. */
export function createNetworkProvider(context: ProviderSetupContext): NetworkProvider {
  const provider = context.values.get(networkProviderFlag) === "memory" ? new MemoryNetworkProvider() : neutronProvider(context);
  return instrumentedNetworkProvider(provider, context.metrics);
}

function neutronProvider({ client, values }: ProviderSetupContext): NetworkProvider {
  const build = (settings: NeutronSettings) => {
    const connection = neutronConnection(settings, values);
    return new NeutronNetworkProvider({
      client: new NeutronClient({ endpoint: connection.endpoint, auth: connection.auth, timeoutMs: connection.timeoutMs }),
      ...(connection.projectID ? { projectID: connection.projectID } : {}),
    });
  };
  try {
    const secret = credentialsSecret(values);
    if (!secret) return build(settingsFromFlags(values));
    return deferredNetworkProvider({
      kind: "neutron",
      build: async () => build(withSecretData(settingsFromFlags(values), await readSecretData(client, secret), secret)),
      needsRebuild: (err) =>
        err instanceof NeutronSettingsError || err instanceof KeystoneAuthError || (err instanceof NeutronApiError && err.status === 401),
    });
  } catch (err) {
    if (err instanceof NeutronSettingsError) throw new UsageError(err.message);
    throw err;
  }
}

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

async function readSecretData(client: KubeClient, secret: SecretReference): Promise<Record<string, string>> {
  try {
    const object = await client.dynamic.resource<SecretObject>(resources.secrets, secret.namespace).get(secret.name);
    return Object.fromEntries(Object.entries(object.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]));
  } catch (err) {
    if (isNotFound(err)) throw new NeutronSettingsError(`Secret ${secret.namespace}/${secret.name} (--neutron-credentials-secret) not found`);
    throw err;
  }
}
