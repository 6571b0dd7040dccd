// The garbage collector where kube-controller-manager v1.33's behaviour is the specification:
// resources served only in a non-preferred version, and a resource whose LIST always fails (a
// broken conversion webhook), which must not hold anything back, at start-up either: the
// workers start after at most 30 s without it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { freeLoopbackPorts } from "../controlplane/free-ports.ts";
import { ensureNamespace, fastClient } from "../integration/informer-fixtures.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { buildKubeLoom, type KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { configMapNames, createConfigMap, getConfigMap, kubectl, referenceTo, startGarbageCollector, waitUntil } from "./gc-fixtures.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let binary: string;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
  client = await fastClient(controlPlane.kubeconfigPath);
  // Defined before kube-loom starts, so its first discovery sees them.
  await kubectl(controlPlane, ["apply", "-f", "-"], versionedGroupCrds);
  await kubectl(controlPlane, ["wait", "--for=condition=Established", "crd/alphas.versions.example.com", "crd/betas.versions.example.com", "--timeout=60s"]);
  kubeLoom = await startGarbageCollector(controlPlane, binary);
}, 300_000);

afterAll(async () => {
  if (kubeLoom) expect(await kubeLoom.stop()).toBe(0);
  await controlPlane?.stop();
}, 120_000);

describe("garbage collector as kube-controller-manager v1.33", () => {
  test("a kind served only in a non-preferred version of its group is monitored: a Beta owned by a deleted ConfigMap is collected", async () => {
    const ns = "versions";
    await ensureNamespace(client, ns);
    const owner = await createConfigMap(client, ns, "owner");
    const betas = client.dynamic.resource({ group: "versions.example.com", version: "v1alpha1", resource: "betas" }, ns);
    await betas.create({ apiVersion: "versions.example.com/v1alpha1", kind: "Beta", metadata: { name: "owned", ownerReferences: [referenceTo(owner)] } });

    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns]);
    await waitUntil(async () => (await betas.list({})).items.length === 0, "the Beta to be collected", 90_000);
  }, 120_000);

  test("a resource whose LIST always fails (broken conversion webhook) holds back neither orphaning nor foreground deletion", async () => {
    const ns = "broken-webhook";
    await ensureNamespace(client, ns);
    // As upstream's integration test: a Gadget stored as v1beta1, then v1 becomes the storage
    // (and preferred) version, converted by a webhook on a port nobody listens on. Listing v1
    // fails, also from the watch cache (resourceVersion=0, as informers list), which cannot fill.
    await kubectl(controlPlane, ["apply", "-f", "-"], gadgetCrd());
    await kubectl(controlPlane, ["wait", "--for=condition=Established", "crd/gadgets.broken.example.com", "--timeout=60s"]);
    const stored = client.dynamic.resource({ group: "broken.example.com", version: "v1beta1", resource: "gadgets" }, ns);
    await stored.create({ apiVersion: "broken.example.com/v1beta1", kind: "Gadget", metadata: { name: "unconvertible" } });
    const { closed } = await freeLoopbackPorts(["closed"] as const);
    await kubectl(controlPlane, ["apply", "-f", "-"], gadgetCrd({ closedPort: closed, caPem: controlPlane.pki.ca.certPem }));
    const listed = client.dynamic.metadata({ group: "broken.example.com", version: "v1", resource: "gadgets" });
    const listError = () => listed.list({ resourceVersion: "0" }).then(() => "", (err: unknown) => (err instanceof Error ? err.message : String(err)));
    await waitUntil(async () => (await listError()).includes("conversion webhook"), "listing v1 to fail in the conversion webhook");
    const gadgetsMonitored = () => kubeLoomLogs().some((line) => Array.isArray(line.added) && line.added.includes("gadgets.v1.broken.example.com"));
    await waitUntil(async () => gadgetsMonitored(), "a monitor for gadgets v1", 90_000);

    const orphanOwner = await createConfigMap(client, ns, "orphan-owner");
    await createConfigMap(client, ns, "orphan-dependent", { ownerReferences: [referenceTo(orphanOwner, { blockOwnerDeletion: true })] });
    const foregroundOwner = await createConfigMap(client, ns, "foreground-owner");
    await createConfigMap(client, ns, "foreground-dependent", { ownerReferences: [referenceTo(foregroundOwner, { blockOwnerDeletion: true })] });
    await kubectl(controlPlane, ["delete", "configmap", "orphan-owner", "-n", ns, "--cascade=orphan", "--wait=false"]);
    await kubectl(controlPlane, ["delete", "configmap", "foreground-owner", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => (await configMapNames(client, ns)).join() === "orphan-dependent", "both deletions to finish", 60_000);
    expect((await getConfigMap(client, ns, "orphan-dependent"))?.metadata?.ownerReferences ?? []).toEqual([]);
    await expect(listed.list({})).rejects.toThrow("conversion webhook");
  }, 180_000);

  test("started while that resource cannot be listed, the collector starts its workers anyway after at most 30 s, as upstream", async () => {
    const ns = "broken-at-start";
    await ensureNamespace(client, ns);
    expect(await kubeLoom.stop()).toBe(0);
    kubeLoom = await startGarbageCollector(controlPlane, binary, "gc-restarted");
    const owner = await createConfigMap(client, ns, "owner");
    await createConfigMap(client, ns, "dependent", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });
    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => (await configMapNames(client, ns)).length === 0, "the foreground deletion to finish", 90_000);
    const warning = kubeLoomLogs().find((line) => line.msg?.startsWith("not all resource monitors synced in time"));
    expect(warning?.unsynced).toEqual(["gadgets.v1.broken.example.com"]);
  }, 180_000);
});

interface LogLine {
  msg?: string;
  added?: unknown;
  unsynced?: unknown;
}

function kubeLoomLogs(): LogLine[] {
  return kubeLoom
    .logs()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

const openSchema = "schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }";

// One group, two kinds: Alpha in v1 (the group's preferred version), Beta only in v1alpha1.
const versionedGroupCrds = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: alphas.versions.example.com }
spec:
  group: versions.example.com
  scope: Namespaced
  names: { plural: alphas, singular: alpha, kind: Alpha }
  versions:
  - { name: v1, served: true, storage: true, ${openSchema} }
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: betas.versions.example.com }
spec:
  group: versions.example.com
  scope: Namespaced
  names: { plural: betas, singular: beta, kind: Beta }
  versions:
  - { name: v1alpha1, served: true, storage: true, ${openSchema} }
`;

/** Gadgets in v1beta1 only; with `webhook`, v1 is stored and served too, converted through a webhook. */
function gadgetCrd(webhook?: { closedPort: number; caPem: string }): string {
  const versions = webhook
    ? `
  - { name: v1, served: true, storage: true, ${openSchema} }
  - { name: v1beta1, served: true, storage: false, ${openSchema} }`
    : `
  - { name: v1beta1, served: true, storage: true, ${openSchema} }`;
  const conversion = webhook
    ? `
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: { url: "https://127.0.0.1:${webhook.closedPort}/convert", caBundle: ${Buffer.from(webhook.caPem).toString("base64")} }`
    : "";
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.broken.example.com }
spec:
  group: broken.example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget }${conversion}
  versions:${versions}
`;
}
