// A Network deleted and created again under the same name while the controller's watch was
// down: the relist that follows the outage shows one object whose UID changed, which the
// informer reports as an update. That is a new Network and must be provisioned at once, not
// left for a resync that may be hours away (here: never).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryNetworkProvider } from "../../controllers/network/providers/memory-provider.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { startInProcessController, type InProcessController } from "./in-process-controller.ts";
import { applyNetwork, getNetwork, installCrd, isReady, kubectlOk, testClient, waitFor, waitForNetwork } from "./network-fixture.ts";

const namespace = "relisted";
let controlPlane: ControlPlane;
let client: KubeClient;
let proxy: TcpProxy;
let controller: InProcessController | undefined;

beforeAll(async () => {
  // Without the watch cache, a watch from a compacted resourceVersion is answered 410 at once.
  controlPlane = await ControlPlane.start({ extraApiserverArgs: ["--watch-cache=false"] });
  client = await testClient(controlPlane);
  await installCrd(controlPlane, { cel: true });
  await kubectlOk(controlPlane, ["create", "namespace", namespace]);
  const url = new URL(controlPlane.server);
  proxy = await TcpProxy.start(url.hostname, Number(url.port));
}, 300_000);

afterAll(async () => {
  await controller?.stop();
  await proxy?.stop();
  await controlPlane?.stop();
}, 60_000);

describe("a Network recreated while the controller's watch was down", () => {
  test("is provisioned as soon as the relist shows its new UID", async () => {
    const memory = new MemoryNetworkProvider();
    controller = await startInProcessController({
      kubeconfig: controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}` }),
      provider: memory,
      resyncPeriodMs: 0,
      workers: 2,
    });
    const spec = { cidr: "10.20.0.0/24", gateway: "10.20.0.1" };
    expect((await applyNetwork(controlPlane, namespace, "phoenix", spec)).code).toBe(0);
    const first = await waitForNetwork(client, namespace, "phoenix", "to be Ready", isReady);
    const firstUid = first?.metadata?.uid;

    proxy.pause("refuse");
    // Another replica (played by kubectl) finishes the deletion while this one is cut off.
    await kubectlOk(controlPlane, ["delete", "network", "phoenix", "-n", namespace, "--wait=false"]);
    await kubectlOk(controlPlane, ["patch", "network", "phoenix", "-n", namespace, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    await waitFor("the first Network to be gone", () => getNetwork(client, namespace, "phoenix"), (network) => network === undefined, 30_000);
    expect((await applyNetwork(controlPlane, namespace, "phoenix", spec)).code).toBe(0);
    await controlPlane.compactEtcd();
    proxy.resume();

    const second = await waitForNetwork(client, namespace, "phoenix", "recreated and Ready", (network) => isReady(network) && network?.metadata?.uid !== firstUid, 60_000);
    expect(memory.list().some((network) => network.ownerUID === second?.metadata?.uid)).toBe(true);
  }, 180_000);
});
