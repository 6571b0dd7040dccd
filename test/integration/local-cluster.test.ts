// deploy/examples/ on the local cluster the main job runs (LocalCluster: kube-controller-manager
// without its replicaset and garbage-collector controllers, kube-scheduler, a kwok fake node),
// with the compiled kube-loom running exactly those two: Pods become Ready and available, a
// Deployment rolls out and is deleted in the foreground, and deleting the namespace completes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { FAKE_NODE_NAME, LocalCluster } from "../controlplane/local-cluster.ts";
import { kubectl, listPods, type Pod, type ReplicaSet, replicaSetVersionsUntil, startKubeLoom } from "../replicaset/replicaset-fixture.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, type KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { fastClient } from "./informer-fixtures.ts";

const examplesDir = resolve(import.meta.dir, "../../deploy/examples");
const namespace = "examples";
const SLOW = { timeout: 240_000 };

let cluster: LocalCluster;
let kubeLoom: KubeLoomProcess;
let client: KubeClient;

beforeAll(async () => {
  [cluster] = await Promise.all([LocalCluster.start(), buildKubeLoom()]);
  kubeLoom = await startKubeLoom(cluster.controlPlane, ["--controllers=replicaset,garbagecollector"]);
  client = await fastClient(cluster.controlPlane.kubeconfigPath);
  await kubectl(cluster.controlPlane, ["create", "namespace", namespace]);
  await kubectl(cluster.controlPlane, ["apply", "--namespace", namespace, "-f", examplesDir]);
}, 600_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await cluster?.stop();
});

describe("deploy/examples on the local cluster", () => {
  test("the ReplicaSet's Pods run Ready on the fake node; it counts them ready, and available only after minReadySeconds", async () => {
    const statuses = await replicaSetStatusesUntil("hello", (status) => status.availableReplicas === 3);
    // Written when the Pods turned Ready, before minReadySeconds (5 s) made them available.
    expect(statuses.some((status) => status.readyReplicas === 3 && (status.availableReplicas ?? 0) < 3)).toBe(true);
    const pods = await listPods(client, namespace, "app=hello");
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.spec?.nodeName).toBe(FAKE_NODE_NAME);
      expect(pod.status?.phase).toBe("Running");
      expect(pod.status?.conditions?.find((condition) => condition.type === "Ready")?.status).toBe("True");
    }
  }, SLOW);

  test("a Deployment rolls out a new image through kube-loom's ReplicaSet controller", async () => {
    const newImage = "registry.k8s.io/pause:3.9";
    await kubectl(cluster.controlPlane, ["rollout", "status", "deployment/web", "-n", namespace, "--timeout=120s"]);
    await kubectl(cluster.controlPlane, ["set", "image", "deployment/web", "-n", namespace, `pause=${newImage}`]);
    await kubectl(cluster.controlPlane, ["rollout", "status", "deployment/web", "-n", namespace, "--timeout=180s"]);

    const replicaSets = (await client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).list({ labelSelector: "app=web" })).items;
    expect(replicaSets).toHaveLength(2);
    const current = replicaSets.find((rs) => rs.spec?.template?.spec?.containers[0]?.image === newImage);
    const previous = replicaSets.find((rs) => rs !== current);
    expect(current?.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(previous?.spec?.replicas).toBe(0);
    expect(previous?.status?.replicas ?? 0).toBe(0);
    // The Events name the controller as kube-controller-manager's would ("From replicaset-controller" in
    // `kubectl describe`); kube-loom wrote them, not kube-controller-manager: their instance is its identity (host_uuid).
    const creators = await kubectl(cluster.controlPlane, [
      "get", "events", "-n", namespace,
      "--field-selector", `reason=SuccessfulCreate,involvedObject.name=${current?.metadata?.name}`,
      "-o", "jsonpath={range .items[*]}{.reportingComponent} {.reportingInstance}{\"\\n\"}{end}",
    ]);
    const lines = creators.trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^replicaset-controller \S+_[0-9a-f-]{36}$/);
  }, SLOW);

  test("deleting the Deployment in the foreground completes through kube-loom's garbage collector", async () => {
    // The Deployment, then its ReplicaSets, wait behind a finalizer only a garbage collector removes,
    // until the dependents are gone (the Pods removed by kwok, as a kubelet removes them).
    await kubectl(cluster.controlPlane, ["delete", "deployment/web", "-n", namespace, "--cascade=foreground", "--timeout=120s"]);
    expect(await kubectl(cluster.controlPlane, ["get", "replicasets,pods", "-n", namespace, "-l", "app=web", "-o", "name"])).toBe("");
  }, SLOW);

  test("kwok removes a deleted Pod as a kubelet does, leaving a finalizer that is not its own", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "held", finalizers: ["example.com/hold"] },
      spec: { containers: [{ name: "pause", image: "registry.k8s.io/pause:3.10" }] },
    };
    await kubectl(cluster.controlPlane, ["apply", "-n", namespace, "-f", "-"], JSON.stringify(pod));
    await kubectl(cluster.controlPlane, ["wait", "pod/held", "-n", namespace, "--for=condition=Ready", "--timeout=60s"]);
    await kubectl(cluster.controlPlane, ["delete", "pod/held", "-n", namespace, "--wait=false"]);

    // kwok's delete has grace period 0; the finalizer keeps the Pod until its owner removes it.
    const pods = client.dynamic.resource<Pod>(resources.pods, namespace);
    let held: Pod | undefined;
    await waitUntil(async () => {
      held = await pods.get("held").catch((error: unknown) => {
        throw isNotFound(error) ? new Error("Pod held is gone: its finalizer was removed by someone other than its owner") : error;
      });
      return held.metadata?.deletionGracePeriodSeconds === 0;
    }, "kwok's delete of Pod held");
    expect(held?.metadata?.finalizers).toEqual(["example.com/hold"]);

    await kubectl(cluster.controlPlane, ["patch", "pod/held", "-n", namespace, "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await kubectl(cluster.controlPlane, ["wait", "pod/held", "-n", namespace, "--for=delete", "--timeout=60s"]);
  }, SLOW);

  test("kubectl delete namespace completes", async () => {
    await kubectl(cluster.controlPlane, ["delete", "namespace", namespace, "--timeout=180s"]);
    const gone = await cluster.controlPlane.kubectl(["get", "namespace", namespace]);
    expect(gone.stderr).toContain("NotFound");
  }, SLOW);
});

type ReplicaSetStatus = NonNullable<ReplicaSet["status"]>;

/** Every status the ReplicaSet was written with, from now until one satisfies `done`. */
async function replicaSetStatusesUntil(name: string, done: (status: ReplicaSetStatus) => boolean, timeoutMs = 180_000): Promise<ReplicaSetStatus[]> {
  const statusOf = (rs: ReplicaSet): ReplicaSetStatus => rs.status ?? { replicas: 0 };
  const versions = await replicaSetVersionsUntil(client, namespace, name, (rs) => done(statusOf(rs)), timeoutMs);
  return versions.map(statusOf);
}
