// Pod writes whose answer is lost (lost-answers.ts): the API server carries out the create or
// delete, the connection is cut as the answer starts, and kube-loom's Pod watch lags 3 s. No
// second Pod may be created, nor another deleted, and the ReplicaSet must converge in seconds,
// not after the 5-minute expectations timeout.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { RequestFaultProxy } from "../support/request-fault-proxy.ts";
import { type LostAnswerSetup, lostCreate, lostDelete, watchLagMs } from "./lost-answers.ts";
import { createNamespace } from "./replicaset-fixture.ts";

const namespace = "ambiguous-writes";
let controlPlane: ControlPlane;
let client: KubeClient;
let proxy: RequestFaultProxy;
let kubeLoom: KubeLoomProcess;
let setup: LostAnswerSetup;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
  await createNamespace(client, namespace);
  proxy = await RequestFaultProxy.inFrontOf(controlPlane);
  kubeLoom = await KubeLoomProcess.start({
    binary: await buildKubeLoom(),
    kubeconfig: controlPlane.writeKubeconfig({ server: proxy.url }),
    logDir: controlPlane.dir,
    args: ["--leader-elect=false", "--controllers=replicaset"],
  });
  await kubeLoom.waitFor("/healthz");
  setup = { controlPlane, client, proxy, namespace };
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await proxy?.stop();
  await controlPlane?.stop();
});

describe("a Pod write whose answer is lost", () => {
  test("a create the API server did is sent once more, never made a second time, and the ReplicaSet converges in seconds", async () => {
    const outcome = await lostCreate(setup, "lost-create");
    console.log(`lost create answer: converged ${Math.round(outcome.convergedMs)} ms after the cut (Pod watch held back ${watchLagMs} ms)`);
    // 3 Pods and 4 creates: the cut one, its repeat (AlreadyExists), and the other two.
    expect({ ...outcome, convergedMs: 0 }).toEqual({ convergedMs: 0, created: 3, deleted: 0, mostAtOnce: 3, live: 3, writesSent: 4 });
    expect(outcome.convergedMs).toBeLessThan(30_000);
  }, 120_000);

  test("a delete the API server did is sent once more to the same Pod, and no other Pod is deleted", async () => {
    const outcome = await lostDelete(setup, "lost-delete");
    console.log(`lost delete answer: converged ${Math.round(outcome.convergedMs)} ms after the cut (Pod watch held back ${watchLagMs} ms)`);
    // The census counts the 3 Pods it found as created; the repeat is answered NotFound.
    expect({ ...outcome, convergedMs: 0 }).toEqual({ convergedMs: 0, created: 3, deleted: 1, mostAtOnce: 3, live: 2, writesSent: 2 });
    expect(outcome.convergedMs).toBeLessThan(30_000);
  }, 120_000);
});
