// The observed incident: kube-loom restarted with credentials that can list ReplicaSets but not
// Pods. An empty Pod cache must never read as "no Pods": the controller waits (logging what for,
// every 30 s), /readyz names the unsynced informer, and nothing is created until Pods can be
// listed. Before the fix, kube-loom gave up waiting after 120 s and doubled every ReplicaSet.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { apply, createNamespace, kubectl, listPods, PodCensus, replicaSetManifest, startKubeLoom, waitForStatus } from "./replicaset-fixture.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
const processes: KubeLoomProcess[] = [];

const user = "replicaset-without-pod-list";

/** Everything the replicaset controller needs, but listing and watching Pods. */
const rbacWithoutPodList = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ${user} }
rules:
- { apiGroups: [apps], resources: [replicasets], verbs: [get, list, watch, update] }
- { apiGroups: [apps], resources: [replicasets/status], verbs: [update] }
- { apiGroups: [""], resources: [pods], verbs: [create, delete, patch] }
- { apiGroups: [events.k8s.io], resources: [events], verbs: [create, patch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ${user} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${user} }
subjects: [{ kind: User, name: ${user} }]
`;

const podListGrant = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ${user}-pods }
rules:
- { apiGroups: [""], resources: [pods], verbs: [list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ${user}-pods }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${user}-pods }
subjects: [{ kind: User, name: ${user} }]
`;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  for (const process of processes) await process.stop();
  await controlPlane?.stop();
});

async function readyzReason(kubeLoom: KubeLoomProcess): Promise<string> {
  const response = await fetch(`${kubeLoom.url}/readyz/informer-sync`);
  return `${response.status} ${await response.text()}`;
}

describe("a cold Pod cache", () => {
  test("the replicaset controller never reconciles before its Pod informer has synced", async () => {
    const namespace = await createNamespace(client, "cold-cache");
    const first = await startKubeLoom(controlPlane, ["--controllers=replicaset"], "with-full-rbac");
    processes.push(first);
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 3 })]);
    const rs = await waitForStatus(client, namespace, "web", { replicas: 3 });
    await first.stop();

    const census = await PodCensus.start(client, rs);
    try {
      await kubectl(controlPlane, ["apply", "-f", "-"], rbacWithoutPodList);
      const restricted = controlPlane.writeKubeconfig({ client: await controlPlane.issueClientCertificate({ user }) });
      const kubeLoom = await KubeLoomProcess.start({
        binary: await buildKubeLoom(),
        kubeconfig: restricted,
        logDir: controlPlane.dir,
        name: "without-pod-list",
        args: ["--leader-elect=false", "--controllers=replicaset"],
      });
      processes.push(kubeLoom);
      await kubeLoom.waitFor("/healthz");

      // The periodic report names the informer and the reason it cannot list.
      await waitUntil(() => kubeLoom.logs().includes("waiting for informer caches to sync"), "the 30 s waiting report", 60_000, 500);
      const report = kubeLoom.logs().split("\n").find((line) => line.includes("waiting for informer caches to sync")) ?? "";
      expect(report).toContain("pods.v1 (last error:");
      expect(report).toContain("forbidden");
      expect(await readyzReason(kubeLoom)).toMatch(/^500 .*informers not synced: pods\.v1 \(last error: .*forbidden/);
      expect(census.createdCount).toBe(3);
      expect(await listPods(client, namespace)).toHaveLength(3);

      // Pods can be listed at last: the cache syncs, the process becomes ready, and work resumes.
      await kubectl(controlPlane, ["apply", "-f", "-"], podListGrant);
      await kubeLoom.waitFor("/readyz", 90_000);
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=4"]);
      await waitForStatus(client, namespace, "web", { replicas: 4 });
      expect(census.createdCount).toBe(4);
      expect(census.maxLiveCount).toBe(4);
    } finally {
      await census.close();
    }
  }, 300_000);
});
