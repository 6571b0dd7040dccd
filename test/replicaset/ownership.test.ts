// Adoption and release against a real API server: matching orphans are adopted instead of new Pods
// being created, Pods whose labels change are released and replaced, Pods of another controller are
// never touched, and a ReplicaSet deleted with --cascade=orphan leaves Pods a new one adopts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { waitUntil } from "../support/eventually.ts";
import type { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import {
  apply,
  createNamespace,
  getReplicaSet,
  kubectl,
  listPods,
  type Pod,
  replicaSetManifest,
  startKubeLoom,
  waitForStatus,
} from "./replicaset-fixture.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess | undefined;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

function orphanPod(namespace: string, name: string, labels: Record<string, string>, ownerReferences?: object[]): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels, ...(ownerReferences ? { ownerReferences } : {}) },
    spec: { containers: [{ name: "app", image: "registry.example/app:1" }] },
  };
}

function namesOf(pods: Pod[]): string[] {
  return pods.map((pod) => pod.metadata?.name ?? "").sort();
}

async function podsControlledBy(namespace: string, rsName: string): Promise<Pod[]> {
  const rs = await getReplicaSet(client, namespace, rsName);
  return (await listPods(client, namespace)).filter((pod) => controllerRefOf(pod)?.uid === rs.metadata?.uid);
}

describe("adoption and release", () => {
  test("adopts matching orphans, releases relabelled Pods, never touches another controller's Pods", async () => {
    kubeLoom ??= await startKubeLoom(controlPlane, ["--controllers=replicaset"]);
    const namespace = await createNamespace(client, "adoption");
    await kubectl(controlPlane, ["create", "configmap", "other-controller", "-n", namespace]);
    const otherUid = (await kubectl(controlPlane, ["get", "configmap", "other-controller", "-n", namespace, "-o", "jsonpath={.metadata.uid}"])).trim();
    const labels = { app: "shop" };
    await apply(controlPlane, [
      orphanPod(namespace, "orphan-1", labels),
      orphanPod(namespace, "orphan-2", { ...labels, extra: "yes" }),
      orphanPod(namespace, "foreign", labels, [{ apiVersion: "v1", kind: "ConfigMap", name: "other-controller", uid: otherUid, controller: true }]),
      orphanPod(namespace, "unrelated", { app: "other" }),
    ]);
    const foreignBefore = (await listPods(client, namespace)).find((pod) => pod.metadata?.name === "foreign");

    await apply(controlPlane, [replicaSetManifest({ name: "shop", namespace, replicas: 3, labels })]);
    await waitForStatus(client, namespace, "shop", { replicas: 3, fullyLabeledReplicas: 3 });
    const owned = await podsControlledBy(namespace, "shop");
    // Two adopted, one created for the third replica.
    expect(owned).toHaveLength(3);
    expect(namesOf(owned).filter((name) => name.startsWith("orphan-"))).toEqual(["orphan-1", "orphan-2"]);
    expect(controllerRefOf(owned.find((pod) => pod.metadata?.name === "orphan-1") as Pod)).toMatchObject({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "shop",
      controller: true,
      blockOwnerDeletion: true,
    });

    // A user takes orphan-1 out of the set by relabelling it: released and replaced.
    await kubectl(controlPlane, ["label", "pod", "orphan-1", "-n", namespace, "app=debug", "--overwrite"]);
    await waitUntil(
      async () => {
        const pods = await listPods(client, namespace);
        const released = pods.find((pod) => pod.metadata?.name === "orphan-1");
        return !!released && controllerRefOf(released) === undefined && (await podsControlledBy(namespace, "shop")).length === 3;
      },
      "orphan-1 released and replaced",
    );
    await waitForStatus(client, namespace, "shop", { replicas: 3 });

    const foreignAfter = (await listPods(client, namespace)).find((pod) => pod.metadata?.name === "foreign");
    expect(foreignAfter?.metadata?.resourceVersion).toBe(foreignBefore?.metadata?.resourceVersion as string);
    const unrelated = (await listPods(client, namespace)).find((pod) => pod.metadata?.name === "unrelated");
    expect(unrelated?.metadata?.ownerReferences).toBeUndefined();
  }, 180_000);

  test("kubectl delete rs --cascade=orphan, then a new ReplicaSet with the same selector adopts the Pods instead of creating new ones", async () => {
    // Orphaning needs a garbage collector to strip the ownerReferences and the orphan finalizer.
    await kubeLoom?.stop();
    kubeLoom = await startKubeLoom(controlPlane, ["--controllers=replicaset,garbagecollector"]);
    const namespace = await createNamespace(client, "cascade");
    const labels = { app: "cart" };
    await apply(controlPlane, [replicaSetManifest({ name: "cart-v1", namespace, replicas: 4, labels })]);
    await waitForStatus(client, namespace, "cart-v1", { replicas: 4 });
    const originals = namesOf(await listPods(client, namespace, "app=cart"));

    await kubectl(controlPlane, ["delete", "rs", "cart-v1", "-n", namespace, "--cascade=orphan", "--wait=false"]);
    await waitUntil(
      () => getReplicaSet(client, namespace, "cart-v1").then(() => false, (err: unknown) => isNotFound(err)),
      "the garbage collector to orphan the Pods and remove cart-v1",
    );
    const orphans = await listPods(client, namespace, "app=cart");
    expect(namesOf(orphans)).toEqual(originals);
    for (const pod of orphans) expect(pod.metadata?.ownerReferences ?? []).toEqual([]);

    await apply(controlPlane, [replicaSetManifest({ name: "cart-v2", namespace, replicas: 4, labels })]);
    await waitForStatus(client, namespace, "cart-v2", { replicas: 4 });
    expect(namesOf(await podsControlledBy(namespace, "cart-v2"))).toEqual(originals);
    expect(namesOf(await listPods(client, namespace, "app=cart"))).toEqual(originals);
  }, 180_000);
});
