// What the garbage collector's integration tests share: ConfigMaps wired by ownerReferences,
// polling for the cluster to reach a state, and kube-loom started with only the garbage collector.
import type { ControlPlane } from "../controlplane/control-plane.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject, ObjectMeta, OwnerReference } from "../../pkg/kube/objects.ts";
import { KubeLoomProcess } from "../support/kube-loom-binary.ts";

export async function startGarbageCollector(controlPlane: ControlPlane, binary: string, name = "gc", extraArgs: string[] = []): Promise<KubeLoomProcess> {
  const process = await KubeLoomProcess.start({
    binary,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    name,
    args: ["--leader-elect=false", "--controllers=garbagecollector", ...extraArgs],
  });
  await process.waitFor("/healthz", 120_000);
  return process;
}

/** A reference to `owner`, the way controllers write it. */
export function referenceTo(owner: KubeObject, options: { blockOwnerDeletion?: boolean; controller?: boolean } = {}): OwnerReference {
  const meta = owner.metadata ?? {};
  return { apiVersion: owner.apiVersion ?? "v1", kind: owner.kind ?? "ConfigMap", name: meta.name ?? "", uid: meta.uid ?? "", ...options };
}

export async function createConfigMap(client: KubeClient, namespace: string, name: string, meta: Omit<ObjectMeta, "managedFields"> = {}): Promise<KubeObject> {
  const created = await client.dynamic.resource(resources.configMaps, namespace).create({ metadata: { name, ...meta } });
  return { ...created, apiVersion: "v1", kind: "ConfigMap" };
}

export async function getConfigMap(client: KubeClient, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.dynamic.resource(resources.configMaps, namespace).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function configMapNames(client: KubeClient, namespace: string): Promise<string[]> {
  const list = await client.dynamic.resource(resources.configMaps, namespace).list({});
  return list.items.map((item) => item.metadata?.name ?? "").sort();
}

/** Polls `probe` every 200 ms until it returns true; fails with `what` after `timeoutMs`. */
export async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(200);
  }
}

/** Fails the test with kubectl's stderr when a command does not succeed. */
export async function kubectl(controlPlane: ControlPlane, args: string[], stdin?: string): Promise<string> {
  const result = await controlPlane.kubectl(args, stdin === undefined ? {} : { stdin });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}
