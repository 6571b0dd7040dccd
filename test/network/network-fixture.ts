// What the network controller's integration tests share: the CRD (with or without its CEL
// rules), Network objects applied with the real kubectl, reads through kube-loom's own client,
// and polling until an object reaches a state.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { networkGVR, type Network } from "../../controllers/network/network-resource.ts";
import { readyCondition } from "../../controllers/network/network-status.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";

export const crdPath = resolve(import.meta.dir, "../../config/crd/samplecrd.k8s.io_networks.yaml");

export interface NetworkSpecInput {
  cidr: string;
  gateway: string;
  name?: string;
}

export interface NetworkEvent extends KubeObject {
  reason?: string;
  type?: string;
  note?: string;
  regarding?: { name?: string; uid?: string };
}

/** A client for tests: generous rate limits, so the test itself is never what throttles. */
export function testClient(controlPlane: ControlPlane): Promise<KubeClient> {
  return createKubeClient(loadClientConfig({ kubeconfig: controlPlane.kubeconfigPath }), { qps: 1000, burst: 1000, timeoutMs: 60_000, contentType: testContentType() });
}

/** The CRD as shipped, or without any x-kubernetes-validations (an API server without CEL sees no more than that). */
export function crdManifest(options: { cel: boolean }): string {
  const text = readFileSync(crdPath, "utf8");
  if (options.cel) return text;
  return stringifyYaml(withoutKey(parseYaml(text) as unknown, "x-kubernetes-validations"));
}

export async function installCrd(controlPlane: ControlPlane, options: { cel: boolean }): Promise<void> {
  await kubectlOk(controlPlane, ["apply", "-f", "-"], crdManifest(options));
  await kubectlOk(controlPlane, ["wait", "--for=condition=Established", "crd/networks.samplecrd.k8s.io", "--timeout=60s"]);
}

export function networkManifest(namespace: string, name: string, spec: NetworkSpecInput): string {
  return stringifyYaml({ apiVersion: "samplecrd.k8s.io/v1", kind: "Network", metadata: { name, namespace }, spec });
}

/** `kubectl apply` of one Network; returns kubectl's result so rejections can be asserted. */
export function applyNetwork(controlPlane: ControlPlane, namespace: string, name: string, spec: NetworkSpecInput) {
  return controlPlane.kubectl(["apply", "-f", "-"], { stdin: networkManifest(namespace, name, spec) });
}

export async function kubectlOk(controlPlane: ControlPlane, args: string[], stdin?: string): Promise<string> {
  const result = await controlPlane.kubectl(args, stdin === undefined ? {} : { stdin });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

export async function getNetwork(client: KubeClient, namespace: string, name: string): Promise<Network | undefined> {
  try {
    return await client.dynamic.resource<Network>(networkGVR, namespace).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function isReady(network: Network | undefined): boolean {
  return readyCondition(network ?? {})?.status === "True" && network?.status?.observedGeneration === network?.metadata?.generation;
}

/** Polls `read` until `accept` holds; the error names `what` and shows the last value seen. */
export async function waitFor<T>(what: string, read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (accept(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(last)?.slice(0, 1500)}`);
    await Bun.sleep(250);
  }
}

export function waitForNetwork(
  client: KubeClient,
  namespace: string,
  name: string,
  what: string,
  accept: (network: Network | undefined) => boolean,
  timeoutMs?: number,
): Promise<Network | undefined> {
  return waitFor(`Network ${namespace}/${name} ${what}`, () => getNetwork(client, namespace, name), accept, timeoutMs);
}

/** The events.k8s.io Events about one object. */
export async function eventsFor(client: KubeClient, namespace: string, uid: string): Promise<NetworkEvent[]> {
  const list = await client.dynamic.resource<NetworkEvent>(resources.events, namespace).list();
  return list.items.filter((event) => event.regarding?.uid === uid);
}

/** Sum of a Prometheus counter over all its label sets, optionally only those containing `labelMatch`. */
export function counterTotal(metricsText: string, name: string, labelMatch = ""): number {
  let total = 0;
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labelMatch && !line.includes(labelMatch)) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

export const providerOperationsMetric = "kube_loom_network_provider_operations_total";

/** Value at the given quantile (0…1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

function withoutKey(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutKey(item, key));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== key).map(([k, v]) => [k, withoutKey(v, key)]));
  }
  return value;
}
