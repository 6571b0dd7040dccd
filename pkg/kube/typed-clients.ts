// client-node's generated API classes, with their HTTP layer replaced by our RestClient so
// they share its TLS, authentication, rate limiting, metrics and typed errors.
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  EventsV1Api,
  ResponseContext,
  ServerConfiguration,
  createConfiguration,
  wrapHttpLibrary,
  type RequestContext,
} from "@kubernetes/client-node";
import type { RestClient, RestRequest } from "./rest-client.ts";

/**
 * client-node's generated clients for the built-in groups kube-loom uses, sending through kube-loom's
 * RestClient (its TLS, authentication, rate limit, metrics and ApiError). Their objects carry `Date`s where
 * the dynamic client's carry strings. Get them with `await client.typed()`.
 */
export interface TypedClients {
  /** The core group (v1): pods, configmaps, secrets, namespaces, … */
  core: CoreV1Api;
  /** apps/v1: deployments, replicasets, … */
  apps: AppsV1Api;
  /** coordination.k8s.io/v1: leases. */
  coordination: CoordinationV1Api;
  /** events.k8s.io/v1. */
  events: EventsV1Api;
  /** apiextensions.k8s.io/v1: custom resource definitions. */
  apiextensions: ApiextensionsV1Api;
}

export function createTypedClients(rest: RestClient): TypedClients {
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(rest.server, {}),
    httpApi: wrapHttpLibrary({ send: (context) => send(rest, context) }),
    authMethods: {},
  });
  return {
    core: new CoreV1Api(configuration),
    apps: new AppsV1Api(configuration),
    coordination: new CoordinationV1Api(configuration),
    events: new EventsV1Api(configuration),
    apiextensions: new ApiextensionsV1Api(configuration),
  };
}

async function send(rest: RestClient, context: RequestContext): Promise<ResponseContext> {
  const url = new URL(context.getUrl());
  const headers = context.getHeaders();
  const body = context.getBody();
  const response = await rest.send({
    method: context.getHttpMethod() as RestRequest["method"],
    path: url.pathname + url.search,
    ...(typeof body === "string" ? { body, contentType: headers["Content-Type"] ?? "application/json" } : {}),
    ...(headers.Accept ? { accept: headers.Accept } : {}),
    ...(context.getSignal() ? { signal: context.getSignal() } : {}),
  });
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  const text = response.text();
  return new ResponseContext(response.status, responseHeaders, {
    text: () => text,
    binary: async () => Buffer.from(await text),
    stream: () => null,
  });
}
