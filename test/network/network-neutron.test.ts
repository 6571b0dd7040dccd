// The network controller against a real OpenStack Neutron (noauth, see neutron-server.ts), run
// as the compiled kube-loom binary with --network-provider=neutron: the shared reconcile
// scenarios, then a Neutron outage.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { networkGVR, type Network } from "../../controllers/network/network-resource.ts";
import { readyCondition } from "../../controllers/network/network-status.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { applyNetwork, counterTotal, installCrd, isReady, kubectlOk, providerOperationsMetric, testClient, waitFor } from "./network-fixture.ts";
import { NeutronServer } from "./neutron-server.ts";
import { defineReconcileScenarios, type ProviderView } from "./reconcile-scenarios.ts";

const namespace = "networks";
const projectID = "kube-loom-test";
const resyncPeriodMs = 5_000;
let controlPlane: ControlPlane;
let neutron: NeutronServer;
let kubeLoom: KubeLoomProcess;
let client: KubeClient;

let binary: string;

beforeAll(async () => {
  [controlPlane, neutron, binary] = await Promise.all([ControlPlane.start(), NeutronServer.start(), buildKubeLoom()]);
  client = await testClient(controlPlane);
  await kubectlOk(controlPlane, ["create", "namespace", namespace]);
  await installCrd(controlPlane, { cel: true });
  kubeLoom = await KubeLoomProcess.start({
    binary,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    args: [
      "--leader-elect=false",
      "--controllers=network",
      "--network-provider=neutron",
      "--neutron-auth-type=noauth",
      `--neutron-endpoint=${neutron.endpoint}`,
      `--neutron-project-id=${projectID}`,
      `--network-resync-period=${resyncPeriodMs / 1000}s`,
    ],
  });
  await kubeLoom.waitFor("/healthz");
}, 300_000);

afterAll(async () => {
  if (kubeLoom?.running) await kubeLoom.stop();
  await Promise.all([controlPlane?.stop(), neutron?.stop()]);
}, 120_000);

/** Neutron as an administrator sees it, over its own API: the tag is the contract. */
const neutronView: ProviderView = {
  kind: "neutron",
  async networkOf(uid) {
    const [network, ...others] = await neutron.networks(`tags=${encodeURIComponent(`kube-loom:network-uid:${uid}`)}`);
    if (!network) return undefined;
    if (others.length > 0) throw new Error(`${others.length + 1} Neutron networks tagged with ${uid}`);
    expect(network.project_id).toBe(projectID);
    const subnets = await neutron.subnets(`network_id=${network.id}`);
    return { id: network.id, name: network.name, subnets: subnets.map((s) => ({ id: s.id, cidr: s.cidr, gatewayIP: s.gateway_ip })) };
  },
  deleteByHand: (networkID) => neutron.deleteNetwork(networkID),
  operationCount: async () => counterTotal(await metrics(), providerOperationsMetric),
};

async function metrics(): Promise<string> {
  return (await fetch(`${kubeLoom.url}/metrics`)).text();
}

describe("network controller with real Neutron (kube-loom binary)", () => {
  defineReconcileScenarios(() => ({ controlPlane, client, namespace, provider: neutronView, resyncPeriodMs }));

  test("a gateway change sends matching allocation pools (Neutron refuses the gateway alone)", async () => {
    await applyNetwork(controlPlane, namespace, "pools", { cidr: "172.16.8.0/24", gateway: "172.16.8.1" });
    await waitFor("pools Ready", () => client.dynamic.resource<Network>(networkGVR, namespace).get("pools"), isReady);
    await applyNetwork(controlPlane, namespace, "pools", { cidr: "172.16.8.0/24", gateway: "172.16.8.100" });
    const network = await waitFor("pools Ready again", () => client.dynamic.resource<Network>(networkGVR, namespace).get("pools"), isReady);
    const [subnet] = await neutron.subnets(`id=${network.status?.subnetID}`);
    expect(subnet?.gateway_ip).toBe("172.16.8.100");
    const pools = [...(subnet?.allocation_pools ?? [])].sort((a, b) => a.start.localeCompare(b.start, undefined, { numeric: true }));
    expect(pools).toEqual([
      { start: "172.16.8.1", end: "172.16.8.99" },
      { start: "172.16.8.101", end: "172.16.8.254" },
    ]);
    await kubectlOk(controlPlane, ["delete", "network", "pools", "-n", namespace, "--timeout=60s"]);
  }, 240_000);

  test("Neutron stopped: ProviderUnavailable with a bounded number of calls; every Network converges once it is back", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `outage-${i}`);
    const spec = (i: number, gateway = 1) => ({ cidr: `172.17.${i}.0/24`, gateway: `172.17.${i}.${gateway}` });
    for (const [i, name] of names.slice(0, 4).entries()) await applyNetwork(controlPlane, namespace, name, spec(i));
    const networks = client.dynamic.resource<Network>(networkGVR, namespace);
    const readyCount = async () => (await networks.list()).items.filter((n) => n.metadata?.name?.startsWith("outage-") && isReady(n)).length;
    await waitFor("the first 4 Networks Ready", readyCount, (n) => n === 4);

    await neutron.stopNeutron();
    const unavailableBefore = counterTotal(await metrics(), providerOperationsMetric, 'result="unavailable"');
    const outageStarted = Date.now();
    // New Networks and a spec change during the outage; the resync also brings back the Ready ones.
    for (const [i, name] of names.entries()) await applyNetwork(controlPlane, namespace, name, spec(i, i < 2 ? 2 : 1));
    await waitFor(
      "every Network to report ProviderUnavailable",
      async () => (await networks.list()).items.filter((n) => n.metadata?.name?.startsWith("outage-")).map((n) => readyCondition(n)?.reason),
      (reasons) => reasons.length === names.length && reasons.every((reason) => reason === "ProviderUnavailable"),
      120_000,
    );
    const message = readyCondition(await networks.get("outage-7"))?.message ?? "";
    expect(message).toStartWith("neutron is unavailable: Neutron GET");
    await Bun.sleep(Math.max(0, 20_000 - (Date.now() - outageStarted)));
    const outageSeconds = (Date.now() - outageStarted) / 1000;
    const unavailableCalls = counterTotal(await metrics(), providerOperationsMetric, 'result="unavailable"') - unavailableBefore;
    // Probes 1, 2, 4, 8, 16, 30 s apart: about log2 of the outage, plus calls already in flight
    // when it began (at most one per worker); independent per-Network retries would be 8 × that.
    console.log(`[neutron] outage of ${outageSeconds.toFixed(0)} s with ${names.length} Networks waiting: ${unavailableCalls} calls to the unreachable Neutron`);
    expect(unavailableCalls).toBeGreaterThan(0);
    expect(unavailableCalls).toBeLessThanOrEqual(15);

    await neutron.startNeutron();
    const recoveryStarted = Date.now();
    await waitFor("every Network Ready after Neutron is back", readyCount, (n) => n === names.length, 120_000);
    console.log(`[neutron] all ${names.length} Networks Ready ${((Date.now() - recoveryStarted) / 1000).toFixed(1)} s after Neutron answered again`);
    const gatewayMoved = await networks.get("outage-0");
    const [subnet] = await neutron.subnets(`id=${gatewayMoved.status?.subnetID}`);
    expect(subnet?.gateway_ip).toBe("172.17.0.2");
    for (const name of names) await kubectlOk(controlPlane, ["delete", "network", name, "-n", namespace, "--wait=false"]);
    await waitFor("the outage Networks to be deleted", async () => (await networks.list()).items.filter((n) => n.metadata?.name?.startsWith("outage-")).length, (n) => n === 0, 120_000);
    expect(await neutron.networks(`project_id=${projectID}`)).toEqual([]);
  }, 400_000);

  test("settings from a referenced Secret: until it exists ProviderError names it; creating it is enough, no restart", async () => {
    await kubeLoom.stop();
    const fromSecret = await KubeLoomProcess.start({
      binary,
      kubeconfig: controlPlane.kubeconfigPath,
      logDir: controlPlane.dir,
      name: "kube-loom-secret",
      args: ["--leader-elect=false", "--controllers=network", "--network-provider=neutron", "--neutron-credentials-secret=kube-system/neutron-settings"],
    });
    try {
      await fromSecret.waitFor("/healthz");
      await applyNetwork(controlPlane, namespace, "from-secret", { cidr: "172.18.0.0/24", gateway: "172.18.0.1" });
      const failing = await waitFor(
        "from-secret to report the missing Secret",
        () => client.dynamic.resource<Network>(networkGVR, namespace).get("from-secret"),
        (n) => readyCondition(n)?.reason === "ProviderError",
      );
      expect(readyCondition(failing)?.message).toBe("Secret kube-system/neutron-settings (--neutron-credentials-secret) not found");
      await kubectlOk(controlPlane, [
        "create", "secret", "generic", "neutron-settings", "-n", "kube-system",
        "--from-literal=auth-type=noauth", `--from-literal=endpoint=${neutron.endpoint}`, "--from-literal=project-id=from-secret",
      ]);
      const network = await waitFor("from-secret Ready", () => client.dynamic.resource<Network>(networkGVR, namespace).get("from-secret"), isReady);
      expect((await neutron.networks(`project_id=from-secret`)).map((n) => n.id)).toEqual([network.status?.networkID ?? ""]);
      await kubectlOk(controlPlane, ["delete", "network", "from-secret", "-n", namespace, "--timeout=60s"]);
    } finally {
      await fromSecret.stopCleanly();
    }
  }, 240_000);
});
