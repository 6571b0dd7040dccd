// The soak's workload, one operation at a time at a seeded random pace: scale ReplicaSets up and
// down, delete their Pods, create owner trees and delete them with each propagation policy, and
// create and delete standalone Networks. Operations that fail (a fault is on) are counted and
// skipped; the pace stays the same, so there is no hot retry.
import { realClock } from "../../pkg/clock/clock.ts";
import { networkGVR } from "../../controllers/network/network-resource.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { replicaSetManifest } from "../../test/replicaset/replicaset-fixture.ts";
import { chooseTreeShape, createOwnerTree, type OwnerTree, type PropagationPolicy } from "./owner-tree.ts";
import type { SeededRandom } from "./seeded-random.ts";
import { SoakNetworks } from "./soak-networks.ts";
import type { SoakTally } from "./soak-tally.ts";

export interface WorkloadNamespaces {
  replicaSets: string;
  trees: string;
  networks: string;
}

export interface WorkloadLimits {
  replicaSets: number;
  maxReplicas: number;
  maxTrees: number;
  maxNetworks: number;
  operationsPerSecond: number;
}

const policies: readonly PropagationPolicy[] = ["Background", "Foreground", "Orphan"];

export class WorkloadDriver {
  /** Every tree created, deleted ones included (the final checks need their records). */
  readonly trees: OwnerTree[] = [];
  readonly #networks: string[] = [];
  readonly #networkManifests = new SoakNetworks();
  /** Numbers tree and Network names, so no name is ever used twice. */
  #sequence = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly namespaces: WorkloadNamespaces,
    private readonly limits: WorkloadLimits,
    private readonly random: SeededRandom,
    private readonly tally: SoakTally,
    /** Live Pods as the soak's own watch sees them. */
    private readonly livePods: () => KubeObject[],
  ) {}

  get replicaSetNames(): string[] {
    return Array.from({ length: this.limits.replicaSets }, (_, i) => `rs-${i}`);
  }

  /** Creates the ReplicaSets, each with a random starting size. */
  async setUp(): Promise<void> {
    for (const name of this.replicaSetNames) {
      const manifest = replicaSetManifest({ name, namespace: this.namespaces.replicaSets, replicas: this.random.int(1, this.limits.maxReplicas) });
      await this.client.dynamic.resource(resources.replicaSets, this.namespaces.replicaSets).create(manifest);
    }
  }

  /** Runs operations until `signal` aborts; the operation in progress finishes first. */
  async run(signal: AbortSignal): Promise<void> {
    const meanPauseMs = 1000 / this.limits.operationsPerSecond;
    while (!signal.aborted) {
      await this.#operate();
      await realClock.sleep(this.random.jitter(meanPauseMs), signal).catch(() => undefined);
    }
  }

  async #operate(): Promise<void> {
    const kind = this.random.weighted({ scale: 4, "delete-pod": 2, tree: 3, network: 2 });
    switch (kind) {
      case "scale":
        return this.#attempt("scale", () => this.#scale());
      case "delete-pod":
        return this.#attempt("delete-pod", () => this.#deletePod());
      case "tree":
        return this.#treeOperation();
      case "network":
        return this.#networkOperation();
    }
  }

  async #attempt(type: string, operation: () => Promise<unknown>): Promise<void> {
    try {
      await operation();
      this.tally.operation(type);
    } catch (err) {
      this.tally.operation(type, err ?? "failed");
    }
  }

  async #scale(): Promise<void> {
    const name = this.random.pick(this.replicaSetNames) ?? "";
    const replicas = this.random.int(0, this.limits.maxReplicas);
    await this.client.dynamic.resource(resources.replicaSets, this.namespaces.replicaSets).patch(name, { spec: { replicas } }, "merge");
  }

  async #deletePod(): Promise<void> {
    const pod = this.random.pick(this.livePods());
    if (!pod?.metadata?.name) return;
    await this.client.dynamic.resource(resources.pods, this.namespaces.replicaSets).delete(pod.metadata.name);
  }

  #treeOperation(): Promise<void> {
    const live = this.trees.filter((tree) => tree.deletedWith === undefined);
    const create = live.length === 0 || (live.length < this.limits.maxTrees && this.random.chance(0.5));
    if (create) {
      const shape = chooseTreeShape(this.random, live.map((tree) => tree.root));
      const name = `tree-${this.#sequence++}`;
      return this.#attempt("create-tree", () =>
        createOwnerTree(this.client, this.namespaces.trees, name, shape, this.#networkManifests, (tree) => this.trees.push(tree)),
      );
    }
    const tree = this.random.pick(live);
    const policy = this.random.pick(policies) ?? "Background";
    if (!tree) return Promise.resolve();
    // Marked before the request: a deletion whose answer a fault swallowed may still have happened, and is never retried with another policy.
    tree.deletedWith = policy;
    return this.#attempt(`delete-tree-${policy.toLowerCase()}`, () =>
      this.client.dynamic
        .resource(resources.configMaps, this.namespaces.trees)
        .delete(tree.root.metadata?.name ?? "", { propagationPolicy: policy, preconditions: { uid: tree.root.metadata?.uid ?? "" } }),
    );
  }

  #networkOperation(): Promise<void> {
    const create = this.#networks.length === 0 || (this.#networks.length < this.limits.maxNetworks && this.random.chance(0.5));
    const networks = this.client.dynamic.resource(networkGVR, this.namespaces.networks);
    if (create) {
      const manifest = this.#networkManifests.next(`network-${this.#sequence++}`);
      return this.#attempt("create-network", async () => {
        await networks.create(manifest);
        this.#networks.push(manifest.metadata?.name ?? "");
      });
    }
    const name = this.random.pick(this.#networks) ?? "";
    // Forgotten before the request, for the same reason as a tree's deletion.
    this.#networks.splice(this.#networks.indexOf(name), 1);
    return this.#attempt("delete-network", () => networks.delete(name));
  }
}
