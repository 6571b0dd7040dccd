// The garbage-collector half of the differential tests: random owner graphs over ConfigMaps,
// Secrets and the two custom kinds, compared between kube-controller-manager's
// garbage-collector-controller and kube-loom's garbagecollector, each running alone.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { apiVersionOf, resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ensureNamespace } from "../../test/integration/informer-fixtures.ts";
import { waitUntil } from "../../test/support/eventually.ts";
import type { CaseScope } from "./case-scope.ts";
import { clusterThing, thing } from "./differential-crds.ts";
import type { DifferentialSuite } from "./differential-suite.ts";
import { GcCaseApplier } from "./gc-applier.ts";
import { describeGcCase, type GcCase, gcKinds } from "./gc-case.ts";
import { generateGcCase } from "./gc-case-generator.ts";
import { smallerGcCases } from "./gc-case-reductions.ts";

const warmUpTimeoutMs = 180_000;

export const gcSuite: DifferentialSuite<GcCase> = {
  name: "gc",
  title: "garbage collector",
  controllers: "garbage-collector-controller",
  watched: Object.values(gcKinds),
  generate: generateGcCase,
  open: (client, testCase, scope) => new GcCaseApplier(client, testCase, scope),
  smallerCases: smallerGcCases,
  describe: describeGcCase,
  warmUp: collectOneOfEachKind,
};

/** A cluster-scoped owner with one dependent of each namespaced kind: all gone once the owner is, when every monitor runs. */
async function collectOneOfEachKind(client: KubeClient, scope: CaseScope): Promise<void> {
  const namespace = scope.namespace("a");
  await ensureNamespace(client, namespace);
  const owner = await client.dynamic
    .resource(clusterThing)
    .create({ apiVersion: apiVersionOf(clusterThing), kind: clusterThing.kind, metadata: { name: scope.clusterName("owner") } });
  const ownerReferences = [{ apiVersion: apiVersionOf(clusterThing), kind: clusterThing.kind, name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "" }];
  const dependentTypes = [resources.configMaps, resources.secrets, thing];
  for (const type of dependentTypes) {
    await client.dynamic.resource(type, namespace).create({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name: "dependent", ownerReferences } });
  }
  await client.dynamic.resource(clusterThing).delete(owner.metadata?.name ?? "");
  await waitUntil(
    async () => (await Promise.all(dependentTypes.map((type) => client.dynamic.resource(type, namespace).list({})))).every((list) => list.items.length === 0),
    "the garbage collector to collect the warm-up dependents of each kind",
    warmUpTimeoutMs,
    250,
  );
}
