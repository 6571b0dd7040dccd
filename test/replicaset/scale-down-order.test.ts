// Scale-down against a real API server removes the Pods in kube-controller-manager's order. Pods
// in the states the ranking cares about are created as orphans, adopted, given status as a
// kubelet would give it, and the ReplicaSet is scaled down one Pod at a time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import type { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import {
  apply,
  createNamespace,
  kubectl,
  listPods,
  type Pod,
  replicaSetManifest,
  setPodStatus,
  startKubeLoom,
  waitForStatus,
} from "./replicaset-fixture.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
  kubeLoom = await startKubeLoom(controlPlane, ["--controllers=replicaset"]);
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

const hourAgo = Date.now() - 3_600_000;

interface RankedPodSpec {
  name: string;
  node?: string;
  status?: { phase: string; readySince?: number; restarts?: number };
  deletionCost?: string;
}

// In the order they must be deleted; each differs from the ones after it first in the rule its name says.
const podsInDeletionOrder: RankedPodSpec[] = [
  { name: "unassigned", status: { phase: "Running", readySince: hourAgo } },
  { name: "pending", node: "node-1" },
  { name: "unknown", node: "node-1", status: { phase: "Unknown" } },
  { name: "not-ready", node: "node-1", status: { phase: "Running" } },
  { name: "cheap", node: "node-1", status: { phase: "Running", readySince: hourAgo }, deletionCost: "-10" },
  { name: "crowded", node: "node-2", status: { phase: "Running", readySince: hourAgo } },
  { name: "recently-ready", node: "node-3", status: { phase: "Running", readySince: Date.now() - 60_000 } },
  { name: "restarted", node: "node-3", status: { phase: "Running", readySince: hourAgo, restarts: 5 } },
  { name: "survivor", node: "node-3", status: { phase: "Running", readySince: hourAgo } },
];

function podManifest(namespace: string, spec: RankedPodSpec): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: spec.name,
      namespace,
      labels: { app: "ranked" },
      ...(spec.deletionCost ? { annotations: { "controller.kubernetes.io/pod-deletion-cost": spec.deletionCost } } : {}),
    },
    spec: { containers: [{ name: "app", image: "registry.example/app:1" }], ...(spec.node ? { nodeName: spec.node } : {}) },
  };
}

describe("scale-down order", () => {
  test("removes exactly the Pods the ranking says, one at a time", async () => {
    const namespace = await createNamespace(client, "ranking");
    // Both ReplicaSets have one controller (as a Deployment's old and new ones do): the sibling's
    // Pods on node-2 make "crowded" the more doubled-up Pod.
    await kubectl(controlPlane, ["create", "configmap", "owner", "-n", namespace]);
    const ownerUid = (await kubectl(controlPlane, ["get", "configmap", "owner", "-n", namespace, "-o", "jsonpath={.metadata.uid}"])).trim();
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: ownerUid, controller: true }];
    await apply(controlPlane, [
      replicaSetManifest({ name: "sibling", namespace, replicas: 5, labels: { app: "sibling" }, podSpec: { nodeName: "node-2" }, ownerReferences }),
      ...podsInDeletionOrder.map((spec) => podManifest(namespace, spec)),
    ]);
    await waitForStatus(client, namespace, "sibling", { replicas: 5 });
    const byName = new Map((await listPods(client, namespace, "app=ranked")).map((pod) => [pod.metadata?.name ?? "", pod]));
    for (const spec of podsInDeletionOrder) {
      if (spec.status) await setPodStatus(client, byName.get(spec.name) as Pod, spec.status);
    }

    const count = podsInDeletionOrder.length;
    await apply(controlPlane, [replicaSetManifest({ name: "ranked", namespace, replicas: count, labels: { app: "ranked" }, ownerReferences })]);
    await waitForStatus(client, namespace, "ranked", { replicas: count });
    // All adopted, none created.
    expect((await listPods(client, namespace, "app=ranked")).map((pod) => pod.metadata?.name).sort()).toEqual(
      podsInDeletionOrder.map((spec) => spec.name).sort(),
    );

    const deleted: string[] = [];
    for (let replicas = count - 1; replicas >= 1; replicas--) {
      await kubectl(controlPlane, ["scale", "rs/ranked", "-n", namespace, `--replicas=${replicas}`]);
      await waitForStatus(client, namespace, "ranked", { replicas });
      const active = new Set(
        (await listPods(client, namespace, "app=ranked")).filter((pod) => !pod.metadata?.deletionTimestamp).map((pod) => pod.metadata?.name ?? ""),
      );
      deleted.push(...podsInDeletionOrder.map((spec) => spec.name).filter((name) => !active.has(name) && !deleted.includes(name)));
      expect(deleted).toHaveLength(count - replicas);
    }
    expect(deleted).toEqual(podsInDeletionOrder.slice(0, -1).map((spec) => spec.name));
  }, 300_000);
});
