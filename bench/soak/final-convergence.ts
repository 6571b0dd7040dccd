// After the last fault: the state everything must reach, and how long it takes. Every ReplicaSet
// has exactly spec.replicas live Pods and a status that says so; every Network is Ready; and the
// owner trees are settled (nothing stuck deleting, no ownerReference to an object that is gone).
import { networkGVR, type Network } from "../../controllers/network/network-resource.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { isControlledBy } from "../../pkg/kube/owner-references.ts";
import { isReady } from "../../test/network/network-fixture.ts";
import type { Pod, ReplicaSet } from "../../test/replicaset/replicaset-fixture.ts";

export interface ConvergenceProblem {
  type: "replicaset-not-converged" | "network-not-ready" | "owner-tree-not-settled";
  detail: string;
}

export interface ConvergenceResult {
  /** Time from the call until everything had converged; undefined if it did not within the timeout. */
  convergedAfterMs: number | undefined;
  /** What was still wrong at the last look (empty when converged). */
  problems: ConvergenceProblem[];
}

const pollIntervalMs = 1_000;

export async function awaitConvergence(
  client: KubeClient,
  namespaces: { replicaSets: string; trees: string },
  timeoutMs: number,
): Promise<ConvergenceResult> {
  const started = performance.now();
  for (;;) {
    let problems: ConvergenceProblem[];
    try {
      problems = [...(await replicaSetProblems(client, namespaces.replicaSets)), ...(await networkProblems(client)), ...(await treeProblems(client, namespaces.trees))];
    } catch (err) {
      problems = [{ type: "replicaset-not-converged", detail: `could not read the cluster: ${err instanceof Error ? err.message : String(err)}` }];
    }
    const elapsed = performance.now() - started;
    if (problems.length === 0) return { convergedAfterMs: elapsed, problems };
    if (elapsed > timeoutMs) return { convergedAfterMs: undefined, problems };
    await Bun.sleep(pollIntervalMs);
  }
}

async function replicaSetProblems(client: KubeClient, namespace: string): Promise<ConvergenceProblem[]> {
  const [replicaSets, pods] = await Promise.all([
    client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).list(),
    client.dynamic.resource<Pod>(resources.pods, namespace).list(),
  ]);
  const problems: ConvergenceProblem[] = [];
  for (const rs of replicaSets.items) {
    const want = rs.spec?.replicas ?? 1;
    const live = pods.items.filter((pod) => isControlledBy(pod, rs) && !pod.metadata?.deletionTimestamp).length;
    const status = rs.status;
    if (live !== want || status?.replicas !== want || status.observedGeneration !== rs.metadata?.generation) {
      problems.push({
        type: "replicaset-not-converged",
        detail: `${namespace}/${rs.metadata?.name}: spec.replicas ${want}, live Pods ${live}, status.replicas ${status?.replicas}, observedGeneration ${status?.observedGeneration} of ${rs.metadata?.generation}`,
      });
    }
  }
  return problems;
}

async function networkProblems(client: KubeClient): Promise<ConvergenceProblem[]> {
  const networks = await client.dynamic.resource<Network>(networkGVR).list();
  return networks.items
    .filter((network) => network.metadata?.deletionTimestamp || !isReady(network))
    .map((network) => ({
      type: "network-not-ready" as const,
      detail: `${network.metadata?.namespace}/${network.metadata?.name}${network.metadata?.deletionTimestamp ? " stuck deleting" : ""}: ${JSON.stringify(network.status?.conditions ?? [])}`,
    }));
}

async function treeProblems(client: KubeClient, namespace: string): Promise<ConvergenceProblem[]> {
  const objects = await treeObjects(client, namespace);
  const uids = new Set(objects.map((object) => object.metadata?.uid));
  const problems: ConvergenceProblem[] = [];
  for (const object of objects) {
    const meta = object.metadata ?? {};
    const dangling = (meta.ownerReferences ?? []).filter((ref) => !uids.has(ref.uid)).map((ref) => `${ref.kind} ${ref.name}`);
    if (meta.deletionTimestamp || dangling.length > 0) {
      problems.push({
        type: "owner-tree-not-settled",
        detail: `${object.kind} ${namespace}/${meta.name}${meta.deletionTimestamp ? ` stuck deleting (finalizers ${JSON.stringify(meta.finalizers ?? [])})` : ""}${dangling.length ? ` refers to deleted owners ${dangling.join(", ")}` : ""}`,
      });
    }
  }
  return problems;
}

/** The objects of the owner trees: ConfigMaps, Secrets and Networks of `namespace`. */
export async function treeObjects(client: KubeClient, namespace: string): Promise<KubeObject[]> {
  const lists = await Promise.all([resources.configMaps, resources.secrets, networkGVR].map((gvr) => client.dynamic.resource(gvr, namespace).list()));
  return lists.flatMap((list) => list.items);
}
