// Without --client-ca-file, kube-controller-manager trusts the client CA that the API server
// publishes in kube-system/extension-apiserver-authentication (key client-ca-file), so callers
// with a certificate from the cluster's CA authenticate without any flag; --authentication-skip-lookup
// turns this off. The ConfigMap is read until it could be read once, then every minute for changes.
import { isNotFound } from "../kube/errors.ts";
import type { RestClient } from "../kube/rest-client.ts";
import { checkBundle } from "./client-ca.ts";
import { REVIEW_TIMEOUT_MS } from "./delegated-review.ts";
import { type Poll, pollForChanges } from "./poll-for-changes.ts";

const CONFIG_MAP_PATH = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
const DESCRIPTION = "the client-ca-file of ConfigMap kube-system/extension-apiserver-authentication";
/** Until the first read succeeds (the API server may not be up yet). */
const RETRY_INTERVAL_MS = 5_000;
const RESYNC_INTERVAL_MS = 60_000;

/**
 * Calls `onChange` with the bundle (undefined when the API server publishes none) whenever it
 * differs from the last one; a failed read is reported through `onError` once per distinct reason.
 */
export function followClusterClientCa(rest: RestClient, onChange: (bundle: string | undefined) => void, onError: (err: unknown) => void): Poll {
  return pollForChanges<string | undefined>({
    read: async () => {
      const bundle = await published(rest);
      if (bundle !== undefined) checkBundle(bundle, DESCRIPTION);
      return bundle;
    },
    initial: undefined,
    onChange,
    onError,
    firstReadMs: 0,
    retryMs: RETRY_INTERVAL_MS,
    intervalMs: RESYNC_INTERVAL_MS,
  });
}

async function published(rest: RestClient): Promise<string | undefined> {
  try {
    const configMap = await rest.request<{ data?: Record<string, string> }>({ method: "GET", path: CONFIG_MAP_PATH, timeoutMs: REVIEW_TIMEOUT_MS });
    return configMap.data?.["client-ca-file"] || undefined;
  } catch (err) {
    // An API server that publishes nothing: no client CA, as with an empty key.
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
