// Who may read what over HTTPS, decided by the API server as kube-controller-manager has it
// decided: TokenReview for bearer tokens, client certificates against --client-ca-file, and
// SubjectAccessReview for every path not always allowed. Names and defaults are its own.
import type { FlagDefinition } from "./flag-definition.ts";
import { flagGroup } from "./flag-group.ts";
import { SECOND } from "./go-duration.ts";

const authentication = flagGroup("Authentication");
const authorization = flagGroup("Authorization");

export const tokenCacheTtlFlag = authentication.duration("authentication-token-webhook-cache-ttl", 10 * SECOND,
  "How long the API server's answer about a bearer token (valid or not) is remembered. 0: ask for every request.", { min: 0 });

export const clientCaFileFlag = authentication.string("client-ca-file", "",
  "PEM bundle of certificate authorities: a client certificate one of them signed authenticates as its Common Name, in the groups named by its Organizations. Read again whenever it changes.");

export const skipLookupFlag = authentication.bool("authentication-skip-lookup", false,
  "Without --client-ca-file, client certificates are checked against the client CA the API server publishes in ConfigMap kube-system/extension-apiserver-authentication (which needs read access to it); this turns that off.");

export const alwaysAllowPathsFlag = authorization.stringList("authorization-always-allow-paths", ["/healthz", "/readyz", "/livez"],
  "Paths served to anyone, without credentials and without asking the API server (the probes). A trailing * matches every path with that prefix.");

export const authorizedTtlFlag = authorization.duration("authorization-webhook-cache-authorized-ttl", 10 * SECOND,
  "How long an 'allowed' answer from the API server is remembered. 0: ask for every request.", { min: 0 });

export const unauthorizedTtlFlag = authorization.duration("authorization-webhook-cache-unauthorized-ttl", 10 * SECOND,
  "How long a 'not allowed' answer from the API server is remembered. 0: ask for every request.", { min: 0 });

/** The two kubeconfig flags, made per program: their help names the program whose connection they default to. */
export interface DelegatedAuthKubeconfigFlags {
  authentication: FlagDefinition<string>;
  authorization: FlagDefinition<string>;
}

export function delegatedAuthKubeconfigFlags(programName: string): DelegatedAuthKubeconfigFlags {
  return {
    authentication: authentication.string("authentication-kubeconfig", "",
      `kubeconfig of an API server that may create tokenreviews.authentication.k8s.io, asked who a bearer token belongs to. Empty: the API server and credentials ${programName} works with.`),
    authorization: authorization.string("authorization-kubeconfig", "",
      `kubeconfig of an API server that may create subjectaccessreviews.authorization.k8s.io, asked whether a user may GET a path. Empty: the API server and credentials ${programName} works with.`),
  };
}

export function delegatedAuthFlags(kubeconfigs: DelegatedAuthKubeconfigFlags): readonly FlagDefinition[] {
  return [
    kubeconfigs.authentication,
    tokenCacheTtlFlag,
    clientCaFileFlag,
    skipLookupFlag,
    kubeconfigs.authorization,
    alwaysAllowPathsFlag,
    authorizedTtlFlag,
    unauthorizedTtlFlag,
  ];
}
