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

export interface TypedClients {
  core: CoreV1Api;
  apps: AppsV1Api;
  coordination: CoordinationV1Api;
  events: EventsV1Api;
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
