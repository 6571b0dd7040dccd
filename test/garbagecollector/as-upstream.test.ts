// The garbage collector where kube-controller-manager v1.33's behaviour is the specification:
// resources served only in a non-preferred version of their group.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { ensureNamespace, fastClient } from "../integration/informer-fixtures.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { buildKubeLoom, type KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { createConfigMap, kubectl, referenceTo, startGarbageCollector, waitUntil } from "./gc-fixtures.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  let binary: string;
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
});

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
