// The Kubernetes client kube-loom's components share: one rate limiter, one transport, a
// dynamic client and discovery on top, and client-node's typed clients on request.
import { TokenBucket } from "../flowcontrol/token-bucket.ts";
import { kubeLoomProgram, type ProgramIdentity, version } from "../version.ts";
import type { ClientConfig } from "./client-config.ts";
import { DiscoveryClient } from "./discovery.ts";
import { DynamicClient } from "./dynamic-client.ts";
import type { ApiContentType } from "./protobuf/media-types.ts";
import { RestClient, type RequestObserver, type WriteGuard } from "./rest-client.ts";
import { createFetch, currentRuntime, type Fetch } from "./transport.ts";
import type { TypedClients } from "./typed-clients.ts";

/** How a client made by `createKubeClient` paces and names its requests. */
export interface KubeClientOptions {
  /** Sustained requests per second (--kube-api-qps); ≤ 0 disables the limit. */
  qps: number;
  /** Requests allowed in a burst above qps (--kube-api-burst). */
  burst: number;
  /** Per-request timeout in ms (--kube-api-timeout). */
  timeoutMs: number;
  /** Who sends the requests, first in the user agent; kube-loom itself by default. */
  program?: ProgramIdentity | undefined;
  /** Added to the user agent, like client-go's component name. */
  component?: string | undefined;
  /** Told about every request's outcome and latency (the rest_client_* metrics). */
  observer?: RequestObserver | undefined;
  /** The encoding asked for built-in resources (--kube-api-content-type); default protobuf. */
  contentType?: ApiContentType | undefined;
  /** Replaces the runtime's transport (tests). */
  fetch?: Fetch | undefined;
}

/**
 * A connection to one API server, shared by everything that uses it: one rate limiter, one transport.
 * Most code wants `dynamic`: `client.dynamic.resource(resources.pods, "default").get("web-0")`.
 */
export interface KubeClient {
  /** Where the client connects, and how it authenticates. */
  config: ClientConfig;
  /** The program the user agent names; clients derived from this one name it too. */
  program: ProgramIdentity;
  /** Plain HTTP requests to any API path, with the client's rate limit, timeout and error types. */
  rest: RestClient;
  /** get/list/create/update/patch/delete/watch of any resource, objects as JSON. */
  dynamic: DynamicClient;
  /** Which groups, versions and resources the server serves. */
  discovery: DiscoveryClient;
  /**
   * client-node's generated clients for the built-in groups, over this client's transport. They
   * are loaded on first use: their modules take longer to load than the rest of kube-loom.
   */
  typed(): Promise<TypedClients>;
}

export const defaultClientOptions = { qps: 20, burst: 30, timeoutMs: 30_000 } as const;

/**
 * client-go's shape, `<program>/<version> (<os>/<arch>) kubernetes/<commit>[/<component>]`, with
 * the runtime beside the platform and kube-loom's version where client-go names its source:
 * `configmap-mirror/v1.2.0 (linux/amd64; bun) kube-loom/v0.1.0/leader-election`. The API server
 * records the part before the first "/" as the field manager of what the program writes.
 */
export function userAgent(program: ProgramIdentity, component?: string): string {
  const platform = `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`;
  return `${program.name}/${program.version} (${platform}; ${currentRuntime()}) kube-loom/${version}${component ? `/${component}` : ""}`;
}

/**
 * A client for the API server `config` names (see `loadClientConfig`); it sends no request until used.
 * `runCommand` makes the process's own; a controller uses the one its context hands it (`SetupContext.client`),
 * which carries the controller's rate limit and refuses writes unless the process leads.
 */
export async function createKubeClient(config: ClientConfig, options: KubeClientOptions = defaultClientOptions): Promise<KubeClient> {
  const program = options.program ?? kubeLoomProgram;
  const rest = new RestClient({
    config,
    fetch: options.fetch ?? (await createFetch(config.tls)),
    throttle: new TokenBucket(options.qps, options.burst),
    userAgent: userAgent(program, options.component),
    timeoutMs: options.timeoutMs,
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.contentType ? { contentType: options.contentType } : {}),
  });
  return clientOver(config, program, rest);
}

/**
 * Another client over the same connection with its own rate limit, as kube-controller-manager
 * gives a controller its own client (the garbage collector's runs at twice --kube-api-qps).
 * `component` is added to the user agent, so the API server's logs tell the clients apart.
 */
export function withRateLimit(client: KubeClient, qps: number, burst: number, component?: string): KubeClient {
  const agent = component === undefined ? undefined : userAgent(client.program, component);
  return clientOver(client.config, client.program, client.rest.withThrottle(new TokenBucket(qps, burst), agent));
}

/**
 * The same client with `component` last in its user agent, as kube-controller-manager names each
 * controller's client (`…/replicaset-controller`): the API server's audit log tells them apart.
 */
export function withComponent(client: KubeClient, component: string): KubeClient {
  return clientOver(client.config, client.program, client.rest.withUserAgent(userAgent(client.program, component)));
}

/** The same client, refusing every write that `guard` throws for (the controllers' clients while leading). */
export function withWriteGuard(client: KubeClient, guard: WriteGuard): KubeClient {
  return clientOver(client.config, client.program, client.rest.withWriteGuard(guard));
}

function clientOver(config: ClientConfig, program: ProgramIdentity, rest: RestClient): KubeClient {
  let typed: Promise<TypedClients> | undefined;
  return {
    config,
    program,
    rest,
    dynamic: new DynamicClient(rest),
    discovery: new DiscoveryClient(rest),
    typed: () => (typed ??= import("./typed-clients.ts").then(({ createTypedClients }) => createTypedClients(rest))),
  };
}
