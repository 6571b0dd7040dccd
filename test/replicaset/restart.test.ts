// kube-loom killed with SIGKILL in the middle of scaling, then started again: the new process
// rebuilds its view from the API server and neither over-creates nor over-deletes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { waitUntil } from "../support/eventually.ts";
import type { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { apply, createNamespace, kubectl, listPods, PodCensus, replicaSetManifest, startKubeLoom, waitForStatus } from "./replicaset-fixture.ts";

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

// The default --kube-api-qps (20) keeps the scaling slow enough to interrupt.
const kubeLoomArgs = ["--controllers=replicaset"];

async function killAndRestart(name: string): Promise<void> {
  await kubeLoom?.stop("SIGKILL");
  kubeLoom = await startKubeLoom(controlPlane, kubeLoomArgs, name);
}

describe("kill -9 mid-scale", () => {
  test("no over-creation and no extra deletions after a restart", async () => {
    kubeLoom = await startKubeLoom(controlPlane, kubeLoomArgs, "first");
    const namespace = await createNamespace(client, "restart");
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 0 })]);
    const census = await PodCensus.start(client, await waitForStatus(client, namespace, "web", { replicas: 0 }));
    try {
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=400"]);
      await waitUntil(() => census.createdCount >= 100, "100 Pods created", 120_000);
      await killAndRestart("after-kill-scaling-up");
      expect(census.createdCount).toBeLessThan(400);
      await waitForStatus(client, namespace, "web", { replicas: 400 }, 300_000);
      expect(census.createdCount).toBe(400);
      expect(census.maxLiveCount).toBe(400);
      expect(census.deletedCount).toBe(0);

      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=50"]);
      await waitUntil(() => census.deletedCount >= 100, "100 Pods deleted", 120_000);
      await killAndRestart("after-kill-scaling-down");
      expect(census.deletedCount).toBeLessThan(350);
      await waitForStatus(client, namespace, "web", { replicas: 50 }, 300_000);
      expect(census.deletedCount).toBe(350);
      expect(census.createdCount).toBe(400);
      // Once, 51 Pods were listed here (with an HTTP/2 transport, since not seen again): should it
      // recur, the failure lists every Pod with what the census knows of it.
      const pods = await listPods(client, namespace, "app=web");
      const described = pods.map((pod) => {
        const uid = pod.metadata?.uid ?? "";
        const owner = controllerRefOf(pod)?.name ?? "no controller";
        const deleting = pod.metadata?.deletionTimestamp ? ` deleting since ${pod.metadata.deletionTimestamp}` : "";
        return `${pod.metadata?.name} (${owner}${deleting}; census: ${census.describe(uid)})`;
      });
      expect(pods.length === 50 ? "50 Pods" : described.join("\n")).toBe("50 Pods");
    } finally {
      await census.close();
    }
  }, 600_000);
});
