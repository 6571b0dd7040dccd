// The replicaset controller at scale against a real API server, kube-loom running as its binary:
// 0 → 1000 → 10 → 0 with exact counts, never more live Pods than asked for, never more deletions
// than needed, and a status that tells the truth (readiness, availability, terminating Pods).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import type { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import {
  apply,
  createNamespace,
  getReplicaSet,
  kubectl,
  listPods,
  PodCensus,
  replicaSetManifest,
  setPodStatus,
  startKubeLoom,
  waitForStatus,
} from "./replicaset-fixture.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  // An API server with its default feature gates: since 1.35 it keeps status.terminatingReplicas.
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
  kubeLoom = await startKubeLoom(controlPlane, ["--controllers=replicaset", "--kube-api-qps=500", "--kube-api-burst=1000"]);
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

describe("replicaset controller at scale", () => {
  test("0 → 1000 → 10 → 0: exact counts, no overshoot, no extra deletions, correct status", async () => {
    const namespace = await createNamespace(client, "scale");
    const manifest = replicaSetManifest({ name: "web", namespace, replicas: 0, extraTemplateLabels: { tier: "front" } });
    await apply(controlPlane, [manifest]);
    const created = await waitForStatus(client, namespace, "web", { replicas: 0 });
    const census = await PodCensus.start(client, created);
    try {
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=1000"]);
      const scaledUp = await waitForStatus(client, namespace, "web", { replicas: 1000, fullyLabeledReplicas: 1000, readyReplicas: 0 }, 300_000);
      expect(scaledUp.status?.conditions ?? []).toEqual([]);
      expect(census.maxLiveCount).toBe(1000);
      expect(census.createdCount).toBe(1000);
      expect(census.deletedCount).toBe(0);
      expect(await listPods(client, namespace, "app=web")).toHaveLength(1000);

      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=10"]);
      await waitForStatus(client, namespace, "web", { replicas: 10, fullyLabeledReplicas: 10 }, 300_000);
      // Unscheduled Pods go at once, so nothing is left terminating.
      const survivors = await listPods(client, namespace, "app=web");
      expect(survivors).toHaveLength(10);
      expect(census.liveCount).toBe(10);
      expect(census.deletedCount).toBe(990);
      expect(census.createdCount).toBe(1000);

      // A kubelet reports four of them running and ready for a minute.
      for (const pod of survivors.slice(0, 4)) await setPodStatus(client, pod, { phase: "Running", readySince: Date.now() - 60_000 });
      const steady = await waitForStatus(client, namespace, "web", { replicas: 10, readyReplicas: 4, availableReplicas: 4, terminatingReplicas: 0 });

      // Nothing changes, so nothing is written.
      await Bun.sleep(3000);
      expect((await getReplicaSet(client, namespace, "web")).metadata?.resourceVersion).toBe(steady.metadata?.resourceVersion);

      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=0"]);
      await waitForStatus(client, namespace, "web", { replicas: 0, readyReplicas: 0, availableReplicas: 0 });
      await expect(listPods(client, namespace, "app=web")).resolves.toHaveLength(0);
      expect(census.deletedCount).toBe(1000);
      expect(census.createdCount).toBe(1000);
      expect(census.maxLiveCount).toBe(1000);
    } finally {
      await census.close();
    }
  }, 600_000);

  test("availableReplicas waits for minReadySeconds without further Pod events", async () => {
    const namespace = await createNamespace(client, "min-ready");
    await apply(controlPlane, [replicaSetManifest({ name: "slow", namespace, replicas: 2, minReadySeconds: 10 })]);
    await waitForStatus(client, namespace, "slow", { replicas: 2 });
    for (const pod of await listPods(client, namespace, "app=slow")) await setPodStatus(client, pod, { phase: "Running", readySince: Date.now() });
    await waitForStatus(client, namespace, "slow", { readyReplicas: 2, availableReplicas: 0 });
    await waitForStatus(client, namespace, "slow", { readyReplicas: 2, availableReplicas: 2 }, 30_000);
  }, 120_000);

  test("Pods being deleted gracefully count as terminatingReplicas, not replicas, and are replaced at once", async () => {
    const namespace = await createNamespace(client, "terminating");
    // Bound to a node (that has no kubelet), the Pods stay Terminating once deleted.
    await apply(controlPlane, [replicaSetManifest({ name: "bound", namespace, replicas: 3, podSpec: { nodeName: "node-without-kubelet" } })]);
    await waitForStatus(client, namespace, "bound", { replicas: 3 });
    for (const pod of await listPods(client, namespace, "app=bound")) await setPodStatus(client, pod, { phase: "Running", readySince: Date.now() - 60_000 });
    const allReady = await waitForStatus(client, namespace, "bound", { replicas: 3, readyReplicas: 3 });
    // Written even when 0, as kube-controller-manager 1.35+ writes it (1.33 left it out).
    expect(allReady.status).toHaveProperty("terminatingReplicas", 0);

    await kubectl(controlPlane, ["scale", "rs/bound", "-n", namespace, "--replicas=1"]);
    await waitForStatus(client, namespace, "bound", { replicas: 1, readyReplicas: 1, terminatingReplicas: 2 });

    // A user deletes the last one: the controller replaces it while it still terminates.
    const [remaining] = (await listPods(client, namespace, "app=bound")).filter((pod) => !pod.metadata?.deletionTimestamp);
    await kubectl(controlPlane, ["delete", "pod", remaining?.metadata?.name ?? "", "-n", namespace, "--wait=false"]);
    await waitForStatus(client, namespace, "bound", { replicas: 1, readyReplicas: 0, terminatingReplicas: 3 });
  }, 120_000);

  test("/metrics has the controller's stale-sync counter under kube-controller-manager's name", async () => {
    const metrics = await (await fetch(`${kubeLoom.url}/metrics`)).text();
    expect(metrics).toContain("# TYPE replicaset_controller_stale_sync_skips_total counter");
  });
});
