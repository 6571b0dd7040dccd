// The lost-answer scenarios, shared by test/replicaset/ambiguous-writes.test.ts (kube-loom) and
// bench/ambiguous-writes.ts (kube-loom beside kube-controller-manager): a controller manager talks
// to kube-apiserver through a RequestFaultProxy, which forwards one Pod create (or delete), cuts
// the connection as the answer starts, and holds the controller's Pod watch back for a while, the
// moment it is most tempted to act again on a stale cache. The census counts what really happened.
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import type { RequestFaultProxy, RequestMatch } from "../support/request-fault-proxy.ts";
import { apply, getReplicaSet, kubectl, PodCensus, replicaSetManifest, waitForStatus } from "./replicaset-fixture.ts";

/** How long the Pod watch is held back once the answer is cut. */
export const watchLagMs = 3_000;
const podWatch: RequestMatch = { method: "GET", path: /^\/api\/v1\/pods\?(.*&)?watch=(true|1)/ };

/** What a scenario needs: the control plane, an admin client that bypasses the proxy, and the proxy the controller manager uses. */
export interface LostAnswerSetup {
  controlPlane: ControlPlane;
  client: KubeClient;
  proxy: RequestFaultProxy;
  namespace: string;
}

/** What happened to a ReplicaSet's Pods after the lost answer. */
export interface LostAnswerOutcome {
  /** From the cut until the status and the Pods matched the wanted count. */
  convergedMs: number;
  created: number;
  deleted: number;
  mostAtOnce: number;
  live: number;
  /** Requests of the faulted kind the controller manager sent for this ReplicaSet, the cut one included. */
  writesSent: number;
}

/** A new ReplicaSet of 3 whose first Pod create is carried out and its answer lost. */
export async function lostCreate(setup: LostAnswerSetup, name: string): Promise<LostAnswerOutcome> {
  const { controlPlane, client, namespace } = setup;
  const creates: RequestMatch = { method: "POST", path: new RegExp(`^/api/v1/namespaces/${namespace}/pods(\\?|$)`) };
  const sentBefore = setup.proxy.requestCount(creates);
  const answerCut = cutAnswerWhileWatchLags(setup.proxy, creates);
  await apply(controlPlane, [replicaSetManifest({ name, namespace, replicas: 3 })]);
  const census = await PodCensus.start(client, await getReplicaSet(client, namespace, name));
  try {
    const convergedMs = await convergence(setup, name, census, 3, answerCut);
    return { convergedMs, ...counts(census), writesSent: setup.proxy.requestCount(creates) - sentBefore };
  } finally {
    await census.close();
  }
}

/** A ReplicaSet of 3 scaled to 2, whose Pod delete is carried out and its answer lost. */
export async function lostDelete(setup: LostAnswerSetup, name: string): Promise<LostAnswerOutcome> {
  const { controlPlane, client, namespace } = setup;
  await apply(controlPlane, [replicaSetManifest({ name, namespace, replicas: 3 })]);
  await waitForStatus(client, namespace, name, { replicas: 3 });
  const deletes: RequestMatch = { method: "DELETE", path: new RegExp(`^/api/v1/namespaces/${namespace}/pods/${name}-`) };
  const census = await PodCensus.start(client, await getReplicaSet(client, namespace, name));
  try {
    const answerCut = cutAnswerWhileWatchLags(setup.proxy, deletes);
    await kubectl(controlPlane, ["scale", `rs/${name}`, "-n", namespace, "--replicas=2"]);
    const convergedMs = await convergence(setup, name, census, 2, answerCut);
    return { convergedMs, ...counts(census), writesSent: setup.proxy.requestCount(deletes) };
  } finally {
    await census.close();
  }
}

/** Cuts the answer to the next request matching `write`, holding the Pod watch back for watchLagMs from then on. */
function cutAnswerWhileWatchLags(proxy: RequestFaultProxy, write: RequestMatch): Promise<void> {
  const cut = proxy.cutNextAnswer(write, () => {
    const release = proxy.holdAnswers(podWatch);
    setTimeout(release, watchLagMs);
  });
  const noWrite = Bun.sleep(60_000).then(() => Promise.reject(new Error(`no ${write.method} ${write.path} came through the proxy`)));
  return Promise.race([cut, noWrite]);
}

/** Milliseconds from the cut until status and census show `replicas`; then waits out the lag and more, so a surplus made on the stale cache shows too. */
async function convergence(setup: LostAnswerSetup, name: string, census: PodCensus, replicas: number, answerCut: Promise<void>): Promise<number> {
  await answerCut;
  const cutAt = performance.now();
  await waitForStatus(setup.client, setup.namespace, name, { replicas }, 60_000);
  await waitUntil(() => census.liveCount === replicas, `${replicas} live Pods`, 60_000, 50);
  const convergedMs = performance.now() - cutAt;
  await Bun.sleep(watchLagMs + 2_000);
  return convergedMs;
}

function counts(census: PodCensus): Pick<LostAnswerOutcome, "created" | "deleted" | "mostAtOnce" | "live"> {
  return { created: census.createdCount, deleted: census.deletedCount, mostAtOnce: census.maxLiveCount, live: census.liveCount };
}
