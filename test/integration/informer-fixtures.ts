// Shared pieces of the informer integration tests: a fast admin client, bulk object
// creation, an informer wired like the manager wires it, and cache-versus-LIST comparison.
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { SharedIndexInformer, SharedIndexInformerOptions } from "../../pkg/informer/shared-informer.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import type { GroupVersionResource } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { ApiContentType } from "../../pkg/kube/protobuf/media-types.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";

/** An admin client without a rate limit to speak of, asking for the run's encoding unless told another. */
export async function fastClient(kubeconfig: string, contentType: ApiContentType = testContentType()): Promise<KubeClient> {
  return createKubeClient(loadClientConfig({ kubeconfig }), { qps: 2000, burst: 2000, timeoutMs: 30_000, contentType });
}

/** A control plane, an admin client, and a client that reaches kube-apiserver through a TCP proxy the test can cut or stall. */
export interface ProxiedControlPlane {
  controlPlane: ControlPlane;
  admin: KubeClient;
  proxy: TcpProxy;
  proxied: KubeClient;
}

/** `contentType`: what both clients ask for, the run's encoding by default (a test of one wire's behaviour names it). */
export async function startBehindProxy(options?: Parameters<typeof ControlPlane.start>[0], contentType?: ApiContentType): Promise<ProxiedControlPlane> {
  const controlPlane = await ControlPlane.start(options);
  const admin = await fastClient(controlPlane.kubeconfigPath, contentType);
  const url = new URL(controlPlane.server);
  const proxy = await TcpProxy.start(url.hostname, Number(url.port));
  const proxied = await fastClient(controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}` }), contentType);
  return { controlPlane, admin, proxy, proxied };
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  await (await client.typed()).core.createNamespace({ body: { metadata: { name } } }).catch((err: unknown) => {
    if (!(err instanceof Error && err.message.includes("AlreadyExists"))) throw err;
  });
}

export async function createConfigMaps(client: KubeClient, namespace: string, names: readonly string[], payloadBytes = 16): Promise<void> {
  const configMaps = client.dynamic.resource({ group: "", version: "v1", resource: "configmaps" }, namespace);
  const payload = "x".repeat(payloadBytes);
  await inParallel(names, 32, (name) => configMaps.create({ metadata: { name }, data: { payload } } as KubeObject));
}

/** Informers as the manager builds them; `reflector` overrides the defaults, e.g. `{ useWatchList: false }` for LIST. */
export function informerFactory(client: KubeClient, reflector?: SharedIndexInformerOptions<KubeObject>["reflector"]): SharedInformerFactory {
  return new SharedInformerFactory({
    listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope),
    defaultResyncMs: 0,
    ...(reflector && { informerOptions: { reflector } }),
  });
}

/** name → resourceVersion of everything in the informer's cache. */
export function cacheVersions<T extends KubeObject>(informer: SharedIndexInformer<T>): Map<string, string> {
  return new Map(informer.getIndexer().list().map((o) => [o.metadata?.name ?? "", o.metadata?.resourceVersion ?? ""]));
}

/** name → resourceVersion from a fresh quorum LIST. */
export async function listVersions(client: KubeClient, gvr: GroupVersionResource, namespace?: string): Promise<Map<string, string>> {
  const list = await client.dynamic.resource(gvr, namespace).list({});
  return new Map(list.items.map((o) => [o.metadata?.name ?? "", o.metadata?.resourceVersion ?? ""]));
}

export function sameVersions(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, rv] of a) if (b.get(name) !== rv) return false;
  return true;
}
