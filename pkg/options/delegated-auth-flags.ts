// Who may read what over HTTPS, decided by the API server as kube-controller-manager has it
// decided: TokenReview for bearer tokens, client certificates against --client-ca-file, and
// SubjectAccessReview for every path not always allowed. Names and defaults are its own.
import { boolFlag, durationFlag, stringFlag, stringListFlag, type FlagDefinition } from "./flag-definition.ts";
import { SECOND } from "./go-duration.ts";

const AUTHENTICATION = "Authentication";
const AUTHORIZATION = "Authorization";

export const authenticationKubeconfigFlag = stringFlag({
  name: "authentication-kubeconfig",
  group: AUTHENTICATION,
  default: "",
  help: "kubeconfig of an API server that may create tokenreviews.authentication.k8s.io, asked who a bearer token belongs to. Empty: the API server and credentials kube-loom works with.",
});

export const tokenCacheTtlFlag = durationFlag({
  name: "authentication-token-webhook-cache-ttl",
  group: AUTHENTICATION,
  default: 10 * SECOND,
  min: 0,
  help: "How long the API server's answer about a bearer token (valid or not) is remembered. 0: ask for every request.",
});

export const clientCaFileFlag = stringFlag({
  name: "client-ca-file",
  group: AUTHENTICATION,
  default: "",
  help: "PEM bundle of certificate authorities: a client certificate one of them signed authenticates as its Common Name, in the groups named by its Organizations. Read again whenever it changes.",
});

export const skipLookupFlag = boolFlag({
  name: "authentication-skip-lookup",
  group: AUTHENTICATION,
  default: false,
  help: "Without --client-ca-file, client certificates are checked against the client CA the API server publishes in ConfigMap kube-system/extension-apiserver-authentication (which needs read access to it); this turns that off.",
});

export const authorizationKubeconfigFlag = stringFlag({
  name: "authorization-kubeconfig",
  group: AUTHORIZATION,
  default: "",
  help: "kubeconfig of an API server that may create subjectaccessreviews.authorization.k8s.io, asked whether a user may GET a path. Empty: the API server and credentials kube-loom works with.",
});

export const alwaysAllowPathsFlag = stringListFlag({
  name: "authorization-always-allow-paths",
  group: AUTHORIZATION,
  default: ["/healthz", "/readyz", "/livez"],
  help: "Paths served to anyone, without credentials and without asking the API server (the probes). A trailing * matches every path with that prefix.",
});

export const authorizedTtlFlag = durationFlag({
  name: "authorization-webhook-cache-authorized-ttl",
  group: AUTHORIZATION,
  default: 10 * SECOND,
  min: 0,
  help: "How long an 'allowed' answer from the API server is remembered. 0: ask for every request.",
});

export const unauthorizedTtlFlag = durationFlag({
  name: "authorization-webhook-cache-unauthorized-ttl",
  group: AUTHORIZATION,
  default: 10 * SECOND,
  min: 0,
  help: "How long a 'not allowed' answer from the API server is remembered. 0: ask for every request.",
});

export const delegatedAuthFlags: readonly FlagDefinition[] = [
  authenticationKubeconfigFlag,
  tokenCacheTtlFlag,
  clientCaFileFlag,
  skipLookupFlag,
  authorizationKubeconfigFlag,
  alwaysAllowPathsFlag,
  authorizedTtlFlag,
  unauthorizedTtlFlag,
];
