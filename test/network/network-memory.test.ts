// The reconcile scenarios with the in-memory provider (the default), on a real control plane,
// plus what the default configuration must do when the CRD is missing: stay out of the way,
// and start by itself once the CRD is installed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readyCondition } from "../../controllers/network/network-status.ts";
import { MemoryNetworkProvider } from "../../controllers/network/providers/memory-provider.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { startInProcessController, type InProcessController } from "./in-process-controller.ts";
import { applyNetwork, counterTotal, installCrd, isReady, kubectlOk, providerOperationsMetric, testClient, waitFor, waitForNetwork } from "./network-fixture.ts";
import { defineReconcileScenarios, type ScenarioContext } from "./reconcile-scenarios.ts";

const namespace = "networks";
const resyncPeriodMs = 3_000;
let controlPlane: ControlPlane;
let binary: string;
let client: KubeClient;

beforeAll(async () => {
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
  client = await testClient(controlPlane);
  await kubectlOk(controlPlane, ["create", "namespace", namespace]);
}, 300_000);

afterAll(async () => {
  await controlPlane?.stop();
}, 60_000);

describe("network controller, default configuration (kube-loom binary)", () => {
  test("without the CRD it reports clearly and stays idle; installing the CRD later starts it without a restart", async () => {
    const kubeLoom = await KubeLoomProcess.start({
      binary,
      kubeconfig: controlPlane.kubeconfigPath,
      logDir: controlPlane.dir,
      args: ["--leader-elect=false", "--controllers=network", "--log-format=text"],
    });
    try {
      await kubeLoom.waitFor("/healthz");
      await waitFor("the not-installed warning", async () => kubeLoom.logs(), (logs) => logs.includes("networks.samplecrd.k8s.io CustomResourceDefinition is not installed"));
      await installCrd(controlPlane, { cel: true });
      expect((await applyNetwork(controlPlane, namespace, "late", { cidr: "192.168.10.0/24", gateway: "192.168.10.1" })).code).toBe(0);
      const network = await waitForNetwork(client, namespace, "late", "to be Ready", isReady);
      expect(readyCondition(network ?? {})?.message).toContain("memory network");
      expect(kubeLoom.logs()).toContain("CustomResourceDefinition established; starting");
      await kubectlOk(controlPlane, ["delete", "network", "late", "-n", namespace, "--timeout=60s"]);
    } finally {
      await kubeLoom.stopCleanly();
    }
  }, 240_000);
});

test("inconsistent Neutron flags stop kube-loom at start-up with one clear line and exit code 2", async () => {
  const child = Bun.spawn(
    [binary, `--kubeconfig=${controlPlane.kubeconfigPath}`, "--port=0", "--leader-elect=false", "--network-provider=neutron", "--neutron-auth-type=noauth", "--neutron-endpoint=http://127.0.0.1:9696"],
    { stdout: "ignore", stderr: "pipe" },
  );
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect(code).toBe(2);
  expect(stderr.split("\n")).toContain("kube-loom: --neutron-project-id is required with --neutron-auth-type=noauth");
  expect(stderr).not.toContain("    at ");
}, 60_000);

describe("network controller with the memory provider", () => {
  const memory = new MemoryNetworkProvider();
  let controller: InProcessController;

  beforeAll(async () => {
    await installCrd(controlPlane, { cel: true });
    controller = await startInProcessController({ kubeconfig: controlPlane.kubeconfigPath, provider: memory, resyncPeriodMs, workers: 5 });
  }, 120_000);

  afterAll(async () => {
    await controller?.stop();
  }, 60_000);

  const context = (): ScenarioContext => ({
    controlPlane,
    client,
    namespace,
    resyncPeriodMs,
    provider: {
      kind: "memory",
      async networkOf(uid) {
        const network = memory.list().find((candidate) => candidate.ownerUID === uid);
        return network && { id: network.id, name: network.name, subnets: network.subnets };
      },
      deleteByHand: (networkID) => memory.deleteNetwork(networkID),
      operationCount: async () => counterTotal(await controller.metrics(), providerOperationsMetric),
    },
  });
  defineReconcileScenarios(context);
});
