// Client checks that must hold on every runtime. The Bun tests call them directly; the Deno
// test runs them through test/deno/client-scenarios-main.ts against the same control plane.
import assert from "node:assert/strict";
import { loadClientConfig, type ClientConfigSources } from "../../pkg/kube/client-config.ts";
import { createKubeClient } from "../../pkg/kube/client.ts";
import { ApiError, TransportError } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";

/** What the scenarios run against, prepared by test/integration/client-fixture.ts. */
export interface ClientFixture {
  namespace: string;
  server: string;
  /** Admin client certificate. */
  certKubeconfig: string;
  /** A ServiceAccount token (TokenRequest API) allowed only configmaps in `namespace`. */
  tokenKubeconfig: string;
  /** Admin certificate, but a server URL where nothing listens: --master must fix it. */
  wrongServerKubeconfig: string;
  /** Trusts an unrelated CA. */
  wrongCaKubeconfig: string;
  /** A mounted service account: token, ca.crt, namespace. */
  serviceAccountDir: string;
  /** The same token, obtained through an exec credential plugin (client.authentication.k8s.io/v1). */
  execPluginKubeconfig: string;
  /** The same token, read from a file named by the kubeconfig's `tokenFile`. */
  tokenFileKubeconfig: string;
}

const clientOptions = { qps: 50, burst: 100, timeoutMs: 10_000, contentType: testContentType() };

/** A client as the scenarios use one: modest limits, short timeout, the run's encoding. */
export async function clientFor(sources: ClientConfigSources) {
  return createKubeClient(loadClientConfig(sources), clientOptions);
}

/** LIST, then WATCH from the list's resourceVersion, then CREATE: the watch sees the new object. */
export async function listCreateWatch(sources: ClientConfigSources, namespace: string): Promise<void> {
  const client = await clientFor(sources);
  const configMaps = client.dynamic.resource<KubeObject & { data?: Record<string, string> }>(resources.configMaps, namespace);
  const list = await configMaps.list({});
  assert.ok(list.metadata?.resourceVersion, "list has a resourceVersion");
  const stop = new AbortController();
  const events = await configMaps.watch({ resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 60 }, stop.signal);
  const name = `scenario-${crypto.randomUUID().slice(0, 8)}`;
  await configMaps.create({ metadata: { name }, data: { runtime: "any" } });
  const deadline = setTimeout(() => stop.abort(), 15_000);
  let seen = false;
  for await (const event of events) {
    if (event.type === "ADDED" && event.object.metadata?.name === name) {
      seen = true;
      break;
    }
  }
  clearTimeout(deadline);
  stop.abort();
  assert.ok(seen, `watch delivered ADDED ${name}`);
  const again = await configMaps.list({});
  assert.ok(again.items.some((cm) => cm.metadata?.name === name), "list contains the created object");
  await configMaps.delete(name);
}

/** RBAC denies the ServiceAccount secrets: the error names the verb and the resource. */
export async function forbiddenNamesVerbAndResource(sources: ClientConfigSources, namespace: string): Promise<void> {
  const client = await clientFor(sources);
  const error = await client.dynamic.resource(resources.secrets, namespace).list({}).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
  assert.equal(error.code, 403);
  assert.match(error.message, /cannot list resource "secrets"/);
}

/** A CA that did not sign the serving certificate: a TransportError naming the server and the TLS problem. */
export async function wrongCaFailsClearly(sources: ClientConfigSources, server: string): Promise<void> {
  const client = await clientFor(sources);
  const error = await client.discovery.serverVersion().then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(error instanceof TransportError, `expected TransportError, got ${String(error)}`);
  assert.ok(error.message.includes(server), `message names the server: ${error.message}`);
  assert.match(error.message, /TLS certificate verification failed/);
}

export async function runAllScenarios(fixture: ClientFixture): Promise<string[]> {
  const passed: string[] = [];
  const run = async (name: string, scenario: () => Promise<void>) => {
    await scenario();
    passed.push(name);
  };
  await run("client certificate", () => listCreateWatch({ kubeconfig: fixture.certKubeconfig }, fixture.namespace));
  await run("bearer token", () => listCreateWatch({ kubeconfig: fixture.tokenKubeconfig }, fixture.namespace));
  await run("in-cluster", () => listCreateWatch(inClusterSources(fixture), fixture.namespace));
  await run("exec credential plugin", () => listCreateWatch({ kubeconfig: fixture.execPluginKubeconfig }, fixture.namespace));
  await run("token file", () => listCreateWatch({ kubeconfig: fixture.tokenFileKubeconfig }, fixture.namespace));
  await run("--master override", () =>
    listCreateWatch({ kubeconfig: fixture.wrongServerKubeconfig, master: fixture.server }, fixture.namespace),
  );
  await run("403 names verb and resource", () => forbiddenNamesVerbAndResource({ kubeconfig: fixture.tokenKubeconfig }, fixture.namespace));
  await run("wrong CA", () => wrongCaFailsClearly({ kubeconfig: fixture.wrongCaKubeconfig }, fixture.server));
  return passed;
}

export function inClusterSources(fixture: ClientFixture): ClientConfigSources {
  const url = new URL(fixture.server);
  return {
    env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port },
    serviceAccountDir: fixture.serviceAccountDir,
  };
}
