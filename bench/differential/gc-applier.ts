// Applies a garbage-collector case to one control plane: step 0 creates the namespaces and every
// object, step 1 writes all ownerReferences (UIDs as this API server gave them), and each later
// step sends its operations together. Outcomes are recorded, not thrown: an unexpected answer on
// one side is part of the disagreement, not a crash of the run.
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { apiVersionOf } from "../../pkg/kube/gvr.ts";
import type { KubeObject, OwnerReference } from "../../pkg/kube/objects.ts";
import { ensureNamespace } from "../../test/integration/informer-fixtures.ts";
import { type CaseScope, heldFinalizer } from "./case-scope.ts";
import { setHeld } from "./finalizer-update.ts";
import type { CaseApplier } from "./differential-suite.ts";
import { type GcCase, type GcEdge, type GcObject, type GcOperation, gcKinds, objectOf } from "./gc-case.ts";
import { gcSnapshot } from "./gc-snapshot.ts";
import { Incarnations } from "./incarnations.ts";
import { outcomeOf } from "./operation-outcome.ts";

const fixedSteps = 2;

export class GcCaseApplier implements CaseApplier {
  readonly #incarnations = new Incarnations();
  /** The UID of each case object's latest incarnation on this side. */
  readonly #uids = new Map<number, string>();

  constructor(
    private readonly client: KubeClient,
    private readonly testCase: GcCase,
    private readonly scope: CaseScope,
  ) {}

  get stepCount(): number {
    return fixedSteps + this.testCase.steps.length;
  }

  async applyStep(index: number): Promise<string[]> {
    if (index === 0) return this.#createAll();
    if (index === 1) return this.#linkAll();
    const step = this.testCase.steps[index - fixedSteps] ?? [];
    return Promise.all(step.map((operation) => this.#apply(operation)));
  }

  snapshot(): Promise<string[]> {
    return gcSnapshot(this.client, this.scope, this.#incarnations);
  }

  async #createAll(): Promise<string[]> {
    await Promise.all(["a", "b"].map((which) => ensureNamespace(this.client, this.scope.namespace(which))));
    return Promise.all(this.testCase.objects.map((object) => outcomeOf(`create o${object.id}`, () => this.#create(object, object.held))));
  }

  async #create(object: GcObject, held: boolean): Promise<string> {
    const type = gcKinds[object.kind];
    const created = await this.#resource(object).create({
      apiVersion: apiVersionOf(type),
      kind: type.kind,
      metadata: { name: this.#nameOf(object), labels: this.scope.labels, ...(held ? { finalizers: [heldFinalizer] } : {}) },
    });
    const uid = created.metadata?.uid ?? "";
    this.#incarnations.record(`o${object.id}`, uid);
    this.#uids.set(object.id, uid);
    return "created";
  }

  #linkAll(): Promise<string[]> {
    const dependents = this.testCase.objects.filter((object) => this.testCase.edges.some((edge) => edge.dependent === object.id));
    return Promise.all(
      dependents.map((dependent) =>
        outcomeOf(`link o${dependent.id}`, async () => {
          const ownerReferences = this.testCase.edges.filter((edge) => edge.dependent === dependent.id).map((edge) => this.#reference(edge));
          await this.#resource(dependent).patch(this.#nameOf(dependent), { metadata: { ownerReferences } }, "merge");
          return "linked";
        }),
      ),
    );
  }

  #reference(edge: GcEdge): OwnerReference {
    const flags = { ...(edge.controller ? { controller: true } : {}), ...(edge.blockOwnerDeletion ? { blockOwnerDeletion: true } : {}) };
    if ("absent" in edge.owner) {
      const { kind, name, uid } = edge.owner.absent;
      return { apiVersion: apiVersionOf(gcKinds[kind]), kind, name, uid, ...flags };
    }
    const owner = objectOf(this.testCase, edge.owner.object);
    const uid = this.#uids.get(owner.id) ?? "";
    return { apiVersion: apiVersionOf(gcKinds[owner.kind]), kind: owner.kind, name: this.#nameOf(owner), uid, ...flags };
  }

  #apply(operation: GcOperation): Promise<string> {
    const object = objectOf(this.testCase, operation.object);
    switch (operation.type) {
      case "delete":
        return outcomeOf(`delete o${object.id} (${operation.propagation})`, async () => {
          await this.#resource(object).delete(this.#nameOf(object), { propagationPolicy: operation.propagation });
          return "deleted";
        });
      case "recreate":
        return outcomeOf(`recreate o${object.id}`, () => this.#recreate(object));
      case "release":
        return outcomeOf(`release o${object.id}`, () => setHeld(this.#resource(object), this.#nameOf(object), false));
    }
  }

  async #recreate(object: GcObject): Promise<string> {
    const resource = this.#resource(object);
    const name = this.#nameOf(object);
    await resource.delete(name, { propagationPolicy: "Background" });
    // Without finalizers the object is gone when the DELETE returns; with them it stays, and so does the name.
    const remaining = await resource.get(name).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (remaining) return "still there after the delete: not recreated";
    return this.#create(object, false);
  }

  #resource(object: GcObject): ResourceClient<KubeObject> {
    return this.client.dynamic.resource(gcKinds[object.kind], object.namespace ? this.scope.namespace(object.namespace) : undefined);
  }

  #nameOf(object: GcObject): string {
    return object.namespace ? `o${object.id}` : this.scope.clusterName(`o${object.id}`);
  }
}
