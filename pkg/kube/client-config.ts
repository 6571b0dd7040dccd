// Where the manager's API server connection comes from, in controller-runtime's order (the README
// says why it is not kube-controller-manager's, which has no $KUBECONFIG or ~/.kube/config):
// --kubeconfig, else $KUBECONFIG, else the in-cluster service account, else ~/.kube/config;
// --master overrides the server URL and --context picks a kubeconfig context.
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { errorMessage, ExpectedError, firstLineOfError } from "../errors/expected-error.ts";
import { type Kubeconfig, type KubeconfigCluster, type KubeconfigUser, readKubeconfig } from "./kubeconfig-file.ts";
import type { TlsOptions } from "./transport.ts";

/** Everything needed to reach and authenticate to one API server. */
export interface ClientConfig {
  /** Base URL without a trailing slash, e.g. https://10.0.0.1:443. */
  server: string;
  /** The CA to trust, the client certificate, and verification overrides. */
  tls: TlsOptions;
  /** Authentication headers for one request; called per request so rotated tokens and exec credentials are used. */
  authenticate(): Promise<Record<string, string>>;
  /** The namespace of the context or of the service account, "default" otherwise. */
  namespace: string;
  /** Human-readable origin, for logs and error messages. */
  source: string;
}

/** Where `loadClientConfig` looks; all optional, and each overrides what follows it in the search order. */
export interface ClientConfigSources {
  /** A kubeconfig file (--kubeconfig); tried first. */
  kubeconfig?: string;
  /** The API server's URL (--master); replaces the server the configuration names. */
  master?: string;
  /** The kubeconfig context to use (--context) instead of its current-context. */
  context?: string;
  /** The environment to read KUBECONFIG and KUBERNETES_SERVICE_HOST/_PORT from; default process.env. */
  env?: Record<string, string | undefined>;
  /** The home folder whose .kube/config is the last resort; default the user's. */
  homeDir?: string;
  /** Where the service account is mounted in a pod. */
  serviceAccountDir?: string;
}

/** A user mistake in the connection settings; its message is meant to be shown as it is. */
export class ClientConfigError extends ExpectedError {
  override readonly name = "ClientConfigError";
}

export const defaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Finds the API server and the credentials as kube-controller-manager does: `kubeconfig`, else $KUBECONFIG
 * (the first listed file that exists), else the in-cluster service account, else ~/.kube/config; `master`
 * overrides the server URL. Reads files only; no request is sent.
 *
 * @throws ClientConfigError (an ExpectedError) whose one-line message names the file or setting at fault:
 * none found, a file missing or unreadable, an unknown context, an invalid `master`.
 */
export function loadClientConfig(sources: ClientConfigSources = {}): ClientConfig {
  const env = sources.env ?? process.env;
  const config = selectSource(sources, env);
  if (!sources.master) return config;
  let server: string;
  try {
    server = new URL(sources.master).toString().replace(/\/+$/, "");
  } catch {
    throw new ClientConfigError(`invalid --master "${sources.master}": expected a URL such as https://host:6443`);
  }
  return { ...config, server, source: `${config.source}, server from --master` };
}

function selectSource(sources: ClientConfigSources, env: Record<string, string | undefined>): ClientConfig {
  if (sources.kubeconfig) return fromKubeconfigFile(sources.kubeconfig, "--kubeconfig", sources);
  if (env.KUBECONFIG) {
    // Like kubectl, $KUBECONFIG may list several files; the first that exists is used.
    const path = env.KUBECONFIG.split(":").find((p) => p && existsSync(p));
    if (!path) throw new ClientConfigError(`kubeconfig from $KUBECONFIG not found: ${env.KUBECONFIG}`);
    return fromKubeconfigFile(path, "$KUBECONFIG", sources);
  }
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    return fromServiceAccount(env.KUBERNETES_SERVICE_HOST, env.KUBERNETES_SERVICE_PORT, sources.serviceAccountDir);
  }
  const home = join(sources.homeDir ?? homedir(), ".kube", "config");
  if (existsSync(home)) return fromKubeconfigFile(home, "~/.kube/config", sources);
  if (sources.master) return fromMasterOnly(sources.master, "--master only");
  throw new ClientConfigError(
    "no API server configured: give --kubeconfig or --master, set $KUBECONFIG, create ~/.kube/config, or run in a pod",
  );
}

/**
 * With --master, the kubeconfig only contributes what its current context has (client-go's
 * override): one without clusters or contexts leaves the URL alone, with no credentials.
 */
function fromKubeconfigFile(path: string, origin: string, { context, master }: Pick<ClientConfigSources, "context" | "master">): ClientConfig {
  if (!existsSync(path)) throw new ClientConfigError(`kubeconfig ${path} (${origin}) not found`);
  let kubeconfig: Kubeconfig;
  try {
    kubeconfig = readKubeconfig(path);
  } catch (err) {
    throw new ClientConfigError(`cannot read kubeconfig ${path}: ${firstLineOfError(err)}`);
  }
  const known = kubeconfig.contexts.map((c) => c.name).join(", ") || "none";
  if (context && !kubeconfig.contexts.some((c) => c.name === context)) {
    throw new ClientConfigError(`context "${context}" not found in kubeconfig ${path} (contexts: ${known})`);
  }
  const contextName = context || kubeconfig.currentContext;
  const contextObject = kubeconfig.contexts.find((c) => c.name === contextName);
  if (master && !contextObject) return fromMasterOnly(master, `kubeconfig ${path} (no current context)`);
  if (!contextName) {
    throw new ClientConfigError(`kubeconfig ${path} sets no current-context: pass --context (contexts: ${known}) or run kubectl config use-context`);
  }
  if (!contextObject) throw new ClientConfigError(`kubeconfig ${path}: current-context "${contextName}" is not one of its contexts (contexts: ${known})`);
  const cluster = kubeconfig.clusters.find((c) => c.name === contextObject.cluster);
  const user = kubeconfig.users.find((u) => u.name === contextObject.user);
  const server = cluster?.server ?? master;
  if (!server) {
    const why = cluster ? `cluster "${cluster.name}" has no server` : `context "${contextName}" names cluster "${contextObject.cluster}", which the file does not define`;
    throw new ClientConfigError(`kubeconfig ${path}: ${why}`);
  }
  return {
    server: server.replace(/\/+$/, ""),
    tls: { ...(cluster ? clusterTls(cluster, path) : {}), ...userTls(user, path) },
    authenticate: userAuthenticator(user, path, contextName),
    namespace: contextObject.namespace ?? "default",
    source: `kubeconfig ${path} (context "${contextName}")`,
  };
}

function clusterTls(cluster: KubeconfigCluster, path: string): TlsOptions {
  return {
    ...optional("ca", pem(cluster.caFile, cluster.caData, `certificate-authority of cluster "${cluster.name}" in ${path}`)),
    insecureSkipVerify: cluster.insecureSkipTlsVerify,
    ...optional("serverName", cluster.tlsServerName),
  };
}

function userTls(user: KubeconfigUser | undefined, path: string): TlsOptions {
  if (!user) return {};
  return {
    ...optional("cert", pem(user.certFile, user.certData, `client-certificate of user "${user.name}" in ${path}`)),
    ...optional("key", pem(user.keyFile, user.keyData, `client-key of user "${user.name}" in ${path}`)),
  };
}

function userAuthenticator(user: KubeconfigUser | undefined, path: string, contextName: string): () => Promise<Record<string, string>> {
  if (!user) return async () => ({});
  const impersonation: Record<string, string> = user.impersonate ? { "Impersonate-User": user.impersonate } : {};
  if (user.tokenFile && !user.token) {
    const token = rotatingTokenFile(user.tokenFile);
    return async () => ({ ...impersonation, ...(await token()) });
  }
  if (user.token) {
    const headers = { ...impersonation, Authorization: `Bearer ${user.token.trim()}` };
    return async () => headers;
  }
  if (user.username) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64");
    const headers = { ...impersonation, Authorization: `Basic ${basic}` };
    return async () => headers;
  }
  if (user.usesPlugin) {
    const plugin = pluginCredentials(path, contextName, user.name);
    return async () => ({ ...impersonation, ...(await plugin()) });
  }
  return async () => impersonation;
}

/**
 * Exec credential plugins and auth providers: client-node runs them and caches what they
 * return. It is loaded on the first request of such a user only.
 */
function pluginCredentials(path: string, contextName: string, userName: string): () => Promise<Record<string, string>> {
  let loaded: Promise<KubeConfig> | undefined;
  return async () => {
    loaded ??= import("@kubernetes/client-node").then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      kc.loadFromFile(path);
      kc.setCurrentContext(contextName);
      return kc;
    });
    const options: { headers?: Record<string, string>; cert?: string | Buffer | (string | Buffer)[] } = {};
    await (await loaded).applyToHTTPSOptions(options);
    // The transport's certificate is fixed when the client is made; without this the requests would go out anonymous.
    if (options.cert !== undefined && options.headers?.Authorization === undefined) {
      throw new ClientConfigError(
        `the exec credential plugin of user "${userName}" answered with a client certificate, which kube-loom cannot present: expected a plugin that answers with a token`,
      );
    }
    return options.headers ?? {};
  };
}

function fromServiceAccount(host: string, port: string, dir = defaultServiceAccountDir): ClientConfig {
  const tokenPath = join(dir, "token");
  const caPath = join(dir, "ca.crt");
  if (!existsSync(tokenPath)) {
    throw new ClientConfigError(`in-cluster config: service account token ${tokenPath} not found`);
  }
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const namespacePath = join(dir, "namespace");
  return {
    server,
    tls: existsSync(caPath) ? { ca: readFileSync(caPath, "utf8") } : {},
    authenticate: rotatingTokenFile(tokenPath),
    namespace: existsSync(namespacePath) ? readFileSync(namespacePath, "utf8").trim() : "default",
    source: `in-cluster service account (${dir})`,
  };
}

function fromMasterOnly(master: string, source: string): ClientConfig {
  return { server: master, tls: {}, authenticate: async () => ({}), namespace: "default", source };
}

/** The kubelet rotates projected tokens in place; re-read the file whenever it changes. */
export function rotatingTokenFile(path: string): () => Promise<Record<string, string>> {
  let seenMtime = -1;
  let header = "";
  return async () => {
    const mtime = statSync(path).mtimeMs;
    if (mtime !== seenMtime) {
      header = `Bearer ${readFileSync(path, "utf8").trim()}`;
      seenMtime = mtime;
    }
    return { Authorization: header };
  };
}

function pem(file: string | undefined, base64Data: string | undefined, what: string): string | undefined {
  if (file) {
    try {
      return readFileSync(file, "utf8");
    } catch (err) {
      throw new ClientConfigError(`cannot read ${what}: ${file}: ${errorMessage(err)}`);
    }
  }
  return base64Data ? Buffer.from(base64Data, "base64").toString("utf8") : undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
