// Pod writes whose answer is lost: the API server carries out the create or delete, and the
// connection is cut as the answer starts, so kube-loom sees a reset. Meanwhile its Pod watch lags
// (held back by the proxy), the moment a controller is most tempted to act again on a stale
// cache. No second Pod may be created, nor another deleted, and the ReplicaSet must converge in
// seconds, not after the 5-minute expectations timeout.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { RequestFaultProxy, type RequestMatch } from "../support/request-fault-proxy.ts";
import { apply, createNamespace, getReplicaSet, kubectl, PodCensus, replicaSetManifest, waitForStatus } from "./replicaset-fixture.ts";

const namespace = "ambiguous-writes";
/** How long kube-loom's Pod watch is held back once the answer is cut. */
const watchLagMs = 3_000;
const podWatch: RequestMatch = { method: "GET", path: /^\/api\/v1\/pods\?(.*&)?watch=(true|1)/ };

let controlPlane: ControlPlane;
let client: KubeClient;
let proxy: RequestFaultProxy;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
  await createNamespace(client, namespace);
  const { pki } = controlPlane;
  proxy = await RequestFaultProxy.start({ target: controlPlane.server, caPem: pki.ca.certPem, serving: pki.apiserverServing, client: pki.admin });
  kubeLoom = await KubeLoomProcess.start({
    binary: await buildKubeLoom(),
    kubeconfig: controlPlane.writeKubeconfig({ server: proxy.url }),
    logDir: controlPlane.dir,
    args: ["--leader-elect=false", "--controllers=replicaset"],
  });
  await kubeLoom.waitFor("/healthz");
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await proxy?.stop();
  await controlPlane?.stop();
});

/** Cuts the answer to the next request matching `write`, holding kube-loom's Pod watch back for watchLagMs from then on. */
function cutAnswerWhileWatchLags(write: RequestMatch): Promise<void> {
  const cut = proxy.cutNextAnswer(write, () => {
    const release = proxy.holdAnswers(podWatch);
    setTimeout(release, watchLagMs);
  });
  return Promise.race([cut, Bun.sleep(60_000).then(() => Promise.reject(new Error(`no ${write.method} ${write.path} came through the proxy`)))]);
}

describe("a Pod write whose answer is lost", () => {
  test("a create the API server did is not made a second time, and the ReplicaSet converges in seconds", async () => {
    const answerCut = cutAnswerWhileWatchLags({ method: "POST", path: new RegExp(`^/api/v1/namespaces/${namespace}/pods(\\?|$)`) });
    await apply(controlPlane, [replicaSetManifest({ name: "lost-create", namespace, replicas: 3 })]);
    const census = await PodCensus.start(client, await getReplicaSet(client, namespace, "lost-create"));
    try {
      await answerCut;
      const cutAt = performance.now();
      await waitForStatus(client, namespace, "lost-create", { replicas: 3 }, 60_000);
      await waitUntil(() => census.liveCount === 3, "3 live Pods", 60_000, 50);
      const convergedMs = performance.now() - cutAt;
      // Past the lag, a second Pod made on the stale cache would have shown by now.
      await Bun.sleep(watchLagMs + 2_000);
      console.log(`lost create answer: converged ${Math.round(convergedMs)} ms after the cut (Pod watch held back ${watchLagMs} ms)`);
      expect({ created: census.createdCount, mostAtOnce: census.maxLiveCount, live: census.liveCount }).toEqual({ created: 3, mostAtOnce: 3, live: 3 });
      expect(convergedMs).toBeLessThan(30_000);
    } finally {
      await census.close();
    }
  }, 120_000);

  test("a delete the API server did is not followed by the deletion of another Pod", async () => {
    await apply(controlPlane, [replicaSetManifest({ name: "lost-delete", namespace, replicas: 3 })]);
    await waitForStatus(client, namespace, "lost-delete", { replicas: 3 });
    const census = await PodCensus.start(client, await getReplicaSet(client, namespace, "lost-delete"));
    try {
      const answerCut = cutAnswerWhileWatchLags({ method: "DELETE", path: new RegExp(`^/api/v1/namespaces/${namespace}/pods/`) });
      await kubectl(controlPlane, ["scale", "rs/lost-delete", "-n", namespace, "--replicas=2"]);
      await answerCut;
      const cutAt = performance.now();
      await waitForStatus(client, namespace, "lost-delete", { replicas: 2 }, 60_000);
      await waitUntil(() => census.liveCount === 2, "2 live Pods", 60_000, 50);
      const convergedMs = performance.now() - cutAt;
      await Bun.sleep(watchLagMs + 2_000);
      console.log(`lost delete answer: converged ${Math.round(convergedMs)} ms after the cut (Pod watch held back ${watchLagMs} ms)`);
      expect({ deleted: census.deletedCount, created: census.createdCount, live: census.liveCount }).toEqual({ deleted: 1, created: 3, live: 2 });
      expect(convergedMs).toBeLessThan(30_000);
    } finally {
      await census.close();
    }
  }, 120_000);
});
