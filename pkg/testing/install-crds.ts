// Installs CustomResourceDefinitions and waits until the API server serves them: each one
// Established, and each of its served versions listed by discovery (as envtest waits), so a
// test can create custom objects and start informers on them right away.
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeClient } from "../kube/client.ts";
import { isAlreadyExists } from "../kube/errors.ts";
import { resources } from "../kube/gvr.ts";
import { type CustomResourceDefinition, readCrdFiles } from "./crd-files.ts";

/** Options of `TestEnvironment.installCrds`. */
export interface InstallCrdsOptions {
  /** How long to wait for them to be served. Default 60 s. */
  timeoutMs?: number | undefined;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 100;

/** Creates (or replaces) the CRDs found under `paths` and waits until they are served; returns them as stored. */
export async function installCrds(client: KubeClient, paths: readonly string[], options: InstallCrdsOptions = {}): Promise<CustomResourceDefinition[]> {
  const crds = readCrdFiles(paths);
  const installed = await Promise.all(crds.map((crd) => createOrReplace(client, crd)));
  await waitUntilServed(client, installed, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return installed;
}

async function createOrReplace(client: KubeClient, crd: CustomResourceDefinition): Promise<CustomResourceDefinition> {
  const crdClient = client.dynamic.resource<CustomResourceDefinition>(resources.customResourceDefinitions);
  try {
    return await crdClient.create(crd);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await crdClient.get(crd.metadata?.name ?? "");
    return crdClient.update({ ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion } });
  }
}

async function waitUntilServed(client: KubeClient, crds: readonly CustomResourceDefinition[], timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let waiting = [...crds];
  for (;;) {
    const served = await Promise.all(waiting.map((crd) => isServed(client, crd)));
    waiting = waiting.filter((_, i) => !served[i]);
    if (waiting.length === 0) return;
    if (performance.now() > deadline) {
      const names = waiting.map((crd) => crd.metadata?.name).join(", ");
      throw new Error(`CustomResourceDefinitions not established after ${timeoutMs} ms: ${names}`);
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

async function isServed(client: KubeClient, crd: CustomResourceDefinition): Promise<boolean> {
  try {
    const current = await client.dynamic.resource<CustomResourceDefinition>(resources.customResourceDefinitions).get(crd.metadata?.name ?? "");
    const established = current.status?.conditions?.some((condition) => condition.type === "Established" && condition.status === "True");
    if (!established) return false;
    const { group, names } = current.spec;
    const served = current.spec.versions.filter((version) => version.served);
    const listed = await Promise.all(served.map((version) => client.discovery.serverResourcesForGroupVersion(`${group}/${version.name}`)));
    return listed.every((apiResources) => apiResources.some((apiResource) => apiResource.resource === names.plural));
  } catch {
    return false; // not there yet (discovery answers 404 for a group version it does not serve yet)
  }
}
