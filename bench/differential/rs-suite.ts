// The ReplicaSet half of the differential tests: random sequences of scaling, Pod relabelling,
// Pod deletion, orphaning and re-adoption, compared between kube-controller-manager's
// replicaset-controller and kube-loom's replicaset, each with its own garbage collector (orphaning
// and cascading deletion need one; lending one side's collector to the other would blur whose
// outcome is whose).
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { ensureNamespace } from "../../test/integration/informer-fixtures.ts";
import { listPods, replicaSetManifest, waitForStatus } from "../../test/replicaset/replicaset-fixture.ts";
import { waitUntil } from "../../test/support/eventually.ts";
import type { CaseScope } from "./case-scope.ts";
import type { DifferentialSuite } from "./differential-suite.ts";
import { RsCaseApplier } from "./rs-applier.ts";
import { describeRsCase, type RsCase } from "./rs-case.ts";
import { generateRsCase } from "./rs-case-generator.ts";
import { smallerRsCases } from "./rs-case-reductions.ts";

const warmUpTimeoutMs = 180_000;

export const rsSuite: DifferentialSuite<RsCase> = {
  name: "rs",
  title: "ReplicaSet",
  controllers: "replicaset-controller,garbage-collector-controller",
  watched: [resources.replicaSets, resources.pods],
  generate: generateRsCase,
  open: (client, testCase, scope) => new RsCaseApplier(client, testCase, scope),
  smallerCases: smallerRsCases,
  describe: describeRsCase,
  warmUp: scaleUpAndCollect,
};

/** A ReplicaSet of one gets its Pod and status, and its Pod goes with it: both controllers act. */
async function scaleUpAndCollect(client: KubeClient, scope: CaseScope): Promise<void> {
  const namespace = scope.namespace("rs");
  await ensureNamespace(client, namespace);
  const replicaSets = client.dynamic.resource(resources.replicaSets, namespace);
  await replicaSets.create(replicaSetManifest({ name: "warm-up", namespace, replicas: 1 }));
  await waitForStatus(client, namespace, "warm-up", { replicas: 1 }, warmUpTimeoutMs);
  await replicaSets.delete("warm-up", { propagationPolicy: "Background" });
  await waitUntil(async () => (await listPods(client, namespace)).length === 0, "the warm-up ReplicaSet's Pod to be collected", warmUpTimeoutMs, 250);
}
