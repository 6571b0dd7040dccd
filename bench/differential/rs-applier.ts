// Applies a ReplicaSet case to one control plane, in its own namespace: ReplicaSets as
// test/replicaset's manifests, Pods the test creates named p<id>, and Pod choices resolved
// against this side's live Pods in snapshot order (so equal states choose equal Pods).
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import { podDeletionCostAnnotation } from "../../controllers/replicaset/pod-ranking.ts";
import { ensureNamespace } from "../../test/integration/informer-fixtures.ts";
import { type Pod, type ReplicaSet, replicaSetManifest } from "../../test/replicaset/replicaset-fixture.ts";
import { type CaseScope, heldFinalizer } from "./case-scope.ts";
import type { CaseApplier } from "./differential-suite.ts";
import { setHeld } from "./finalizer-update.ts";
import { Incarnations } from "./incarnations.ts";
import { outcomeOf } from "./operation-outcome.ts";
import { appLabelValue, type PodChoice, type PodLabels, type RsCase, type RsOperation } from "./rs-case.ts";
import { podLine, rsSnapshot } from "./rs-snapshot.ts";

export class RsCaseApplier implements CaseApplier {
  readonly #incarnations = new Incarnations();
  readonly #namespace: string;

  constructor(
    private readonly client: KubeClient,
    private readonly testCase: RsCase,
    scope: CaseScope,
  ) {
    this.#namespace = scope.namespace("rs");
  }

  get stepCount(): number {
    return this.testCase.steps.length;
  }

  async applyStep(index: number): Promise<string[]> {
    if (index === 0) await ensureNamespace(this.client, this.#namespace);
    return Promise.all((this.testCase.steps[index] ?? []).map((operation) => this.#apply(operation)));
  }

  snapshot(): Promise<string[]> {
    return rsSnapshot(this.client, this.#namespace, this.#incarnations);
  }

  #apply(operation: RsOperation): Promise<string> {
    switch (operation.type) {
      case "create-replicaset":
        return outcomeOf(`create rs${operation.replicaSet}`, async () => {
          const tierLabel = this.testCase.replicaSets.find((rs) => rs.id === operation.replicaSet)?.tierLabel ?? false;
          const name = `rs${operation.replicaSet}`;
          const manifest = replicaSetManifest({
            name,
            namespace: this.#namespace,
            replicas: operation.replicas,
            labels: { app: name },
            ...(tierLabel ? { extraTemplateLabels: { tier: "t" } } : {}),
          });
          const created = await this.#replicaSets().create(manifest);
          this.#incarnations.record(name, created.metadata?.uid);
          return "created";
        });
      case "scale":
        return outcomeOf(`scale rs${operation.replicaSet}`, async () => {
          await this.#replicaSets().patch(`rs${operation.replicaSet}`, { spec: { replicas: operation.replicas } }, "merge");
          return "scaled";
        });
      case "delete-replicaset":
        return outcomeOf(`delete rs${operation.replicaSet} (${operation.propagation})`, async () => {
          await this.#replicaSets().delete(`rs${operation.replicaSet}`, { propagationPolicy: operation.propagation });
          return "deleted";
        });
      case "create-pod":
        return outcomeOf(`create p${operation.pod}`, async () => {
          await this.#pods().create(podManifest(`p${operation.pod}`, operation.labels, operation.held));
          return "created";
        });
      case "relabel-pod":
        return this.#withChosenPod("relabel", operation.choice, async (name) => {
          const { app, tier, cost } = operation.labels;
          const metadata = { labels: { app: appLabelValue(app), tier: tier ? "t" : null }, annotations: { [podDeletionCostAnnotation]: String(cost) } };
          await this.#pods().patch(name, { metadata }, "merge");
          return "relabelled";
        });
      case "hold-pod":
        return this.#withChosenPod("hold", operation.choice, (name) =>
          setHeld(this.#pods(), name, true, { [podDeletionCostAnnotation]: String(operation.cost) }),
        );
      case "delete-pod":
        return this.#withChosenPod("delete", operation.choice, async (name) => {
          await this.#pods().delete(name);
          return "deleted";
        });
      case "release-pods":
        return outcomeOf("release Pods", async () => {
          const held = (await this.#pods().list({})).items.filter((pod) => pod.metadata?.finalizers?.includes(heldFinalizer));
          await Promise.all(held.map((pod) => setHeld(this.#pods(), pod.metadata?.name ?? "", false)));
          return `released ${held.length}`;
        });
    }
  }

  /** Resolves the choice on this side's current Pods; "no such Pod" when there is none to choose. */
  #withChosenPod(verb: string, choice: PodChoice, act: (name: string) => Promise<string>): Promise<string> {
    const what = "pod" in choice ? `${verb} p${choice.pod}` : `${verb} Pod #${choice.index} of ${choice.controlledBy === "none" ? "none" : `rs${choice.controlledBy}`}`;
    return outcomeOf(what, async () => {
      if ("pod" in choice) return act(`p${choice.pod}`);
      const controller = choice.controlledBy === "none" ? undefined : `rs${choice.controlledBy}`;
      const candidates = (await this.#pods().list({})).items
        .filter((pod) => !pod.metadata?.deletionTimestamp && controllerRefOf(pod)?.name === controller)
        .map((pod) => ({ name: pod.metadata?.name ?? "", line: podLine(pod, this.#incarnations) }))
        .sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : 0));
      const chosen = candidates[choice.index % Math.max(candidates.length, 1)];
      return chosen ? act(chosen.name) : "no such Pod";
    });
  }

  #replicaSets(): ResourceClient<ReplicaSet> {
    return this.client.dynamic.resource<ReplicaSet>(resources.replicaSets, this.#namespace);
  }

  #pods(): ResourceClient<Pod> {
    return this.client.dynamic.resource<Pod>(resources.pods, this.#namespace);
  }
}

function podManifest(name: string, labels: PodLabels, held: boolean): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      labels: { app: appLabelValue(labels.app), ...(labels.tier ? { tier: "t" } : {}) },
      annotations: { [podDeletionCostAnnotation]: String(labels.cost) },
      ...(held ? { finalizers: [heldFinalizer] } : {}),
    },
    spec: { containers: [{ name: "app", image: "registry.example/app:1" }] },
  };
}
