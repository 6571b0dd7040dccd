// The network controller's acceptance scenarios, written once and run against every provider
// (real Neutron through the kube-loom binary, and the in-memory provider in process): what a
// user does with kubectl, and what they then see in the provider and in the object.
import { expect, test } from "bun:test";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { readyCondition } from "../../controllers/network/network-status.ts";
import { networkFinalizer, networkGVR } from "../../controllers/network/network-resource.ts";
import { applyNetwork, eventsFor, getNetwork, installCrd, isReady, kubectlOk, waitFor, waitForNetwork } from "./network-fixture.ts";
import { measureCreateToReady } from "./ready-latency.ts";

export interface ProviderSubnetView {
  id: string;
  cidr: string;
  gatewayIP: string | null;
}

export interface ProviderNetworkView {
  id: string;
  name: string;
  subnets: ProviderSubnetView[];
}

/** The provider seen from outside the controller, as an administrator sees the cloud. */
export interface ProviderView {
  kind: string;
  /** The network tagged with this Network UID, or undefined. */
  networkOf(uid: string): Promise<ProviderNetworkView | undefined>;
  /** Deletes a network behind the controller's back. */
  deleteByHand(networkID: string): Promise<void>;
  /** How many provider operations the controller has made so far. */
  operationCount(): Promise<number>;
}

export interface ScenarioContext {
  controlPlane: ControlPlane;
  client: KubeClient;
  namespace: string;
  provider: ProviderView;
  /** The controller's --network-resync-period. */
  resyncPeriodMs: number;
}

const timeout = 240_000;

export function defineReconcileScenarios(context: () => ScenarioContext): void {
  const ready = (name: string) => {
    const { client, namespace } = context();
    return waitForNetwork(client, namespace, name, "to be Ready", isReady) as Promise<NonNullable<Awaited<ReturnType<typeof getNetwork>>>>;
  };
  const gone = async (name: string) => {
    const { client, namespace } = context();
    await waitForNetwork(client, namespace, name, "to be gone", (network) => network === undefined);
  };
  const remove = async (name: string) => {
    const { controlPlane, namespace } = context();
    await kubectlOk(controlPlane, ["delete", "network", name, "-n", namespace, "--wait=false"]);
    await gone(name);
  };

  test("apply → provider network and subnet, Ready with IDs; gateway change updates, CIDR change replaces, delete cleans up", async () => {
    const { controlPlane, namespace, provider } = context();
    expect((await applyNetwork(controlPlane, namespace, "life", { cidr: "172.16.1.0/24", gateway: "172.16.1.1" })).code).toBe(0);
    const created = await ready("life");
    const uid = created.metadata?.uid ?? "";
    expect(created.metadata?.finalizers).toContain(networkFinalizer);
    expect(readyCondition(created)?.reason).toBe("Provisioned");
    let actual = await provider.networkOf(uid);
    expect(actual?.id).toBe(created.status?.networkID);
    expect(actual?.name).toBe(`${namespace}/life`);
    expect(actual?.subnets).toEqual([{ id: created.status?.subnetID ?? "", cidr: "172.16.1.0/24", gatewayIP: "172.16.1.1" }]);

    expect((await applyNetwork(controlPlane, namespace, "life", { cidr: "172.16.1.0/24", gateway: "172.16.1.254" })).code).toBe(0);
    const moved = await ready("life");
    actual = await provider.networkOf(uid);
    expect(actual?.subnets).toEqual([{ id: created.status?.subnetID ?? "", cidr: "172.16.1.0/24", gatewayIP: "172.16.1.254" }]);
    expect(moved.status?.subnetID).toBe(created.status?.subnetID ?? "");

    expect((await applyNetwork(controlPlane, namespace, "life", { cidr: "172.16.2.0/23", gateway: "172.16.2.1", name: "renamed" })).code).toBe(0);
    const replaced = await ready("life");
    actual = await provider.networkOf(uid);
    expect(replaced.status?.networkID).toBe(created.status?.networkID ?? "");
    expect(replaced.status?.subnetID).not.toBe(created.status?.subnetID ?? "");
    expect(actual?.name).toBe("renamed");
    expect(actual?.subnets).toEqual([{ id: replaced.status?.subnetID ?? "", cidr: "172.16.2.0/23", gatewayIP: "172.16.2.1" }]);
    const events = await eventsFor(context().client, namespace, uid);
    expect(events.map((event) => event.reason)).toEqual(expect.arrayContaining(["NetworkCreated", "GatewayUpdated", "NetworkRenamed"]));
    expect(events.find((event) => event.reason === "NetworkRenamed")?.note).toContain("replaced");

    await remove("life");
    expect(await provider.networkOf(uid)).toBeUndefined();
  }, timeout);

  test("a provider network deleted by hand is recreated at the next resync", async () => {
    const { controlPlane, namespace, provider, client } = context();
    await applyNetwork(controlPlane, namespace, "drift", { cidr: "172.16.3.0/24", gateway: "172.16.3.1" });
    const before = await ready("drift");
    const uid = before.metadata?.uid ?? "";
    await provider.deleteByHand(before.status?.networkID ?? "");
    const after = await waitForNetwork(client, namespace, "drift", "to get a new network ID", (n) => isReady(n) && n?.status?.networkID !== before.status?.networkID, context().resyncPeriodMs * 3 + 60_000);
    const actual = await provider.networkOf(uid);
    expect(actual?.id).toBe(after?.status?.networkID ?? "");
    expect(actual?.subnets.map((s) => [s.cidr, s.gatewayIP])).toEqual([["172.16.3.0/24", "172.16.3.1"]]);
    const drift = (await eventsFor(client, namespace, uid)).find((event) => event.reason === "DriftRepaired");
    expect(drift?.type).toBe("Warning");
    expect(drift?.note).toContain("created");
    await remove("drift");
  }, timeout);

  test("deleting a Network whose provider network is already gone removes the finalizer", async () => {
    const { controlPlane, namespace, provider } = context();
    await applyNetwork(controlPlane, namespace, "orphan", { cidr: "172.16.4.0/24", gateway: "172.16.4.1" });
    const created = await ready("orphan");
    await provider.deleteByHand(created.status?.networkID ?? "");
    await remove("orphan");
    expect(await provider.networkOf(created.metadata?.uid ?? "")).toBeUndefined();
  }, timeout);

  test("the API server's CEL rules reject a bad CIDR, a gateway outside the CIDR and an IPv6 gateway on an IPv4 CIDR", async () => {
    const { controlPlane, namespace } = context();
    const cases = [
      { spec: { cidr: "10.0.0.300/24", gateway: "10.0.0.1" }, says: ["spec.cidr", "10.0.0.300/24"] },
      { spec: { cidr: "10.0.0.0/24", gateway: "10.1.0.1" }, says: ["spec.gateway", "10.1.0.1", "10.0.0.0/24"] },
      { spec: { cidr: "10.0.0.0/24", gateway: "fd00::1" }, says: ["spec.gateway", "fd00::1", "10.0.0.0/24"] },
    ];
    for (const [i, { spec, says }] of cases.entries()) {
      const result = await applyNetwork(controlPlane, namespace, `cel-${i}`, spec);
      expect(result.code).not.toBe(0);
      for (const text of says) expect(result.stderr).toContain(text);
    }
  }, timeout);

  test("what passes the API server but not the controller: Ready=False InvalidSpec naming the field, an Event, no provider call", async () => {
    const { controlPlane, namespace, provider, client } = context();
    const callsBefore = await provider.operationCount();
    await applyNetwork(controlPlane, namespace, "broadcast", { cidr: "10.9.0.0/24", gateway: "10.9.0.255" });
    const network = await waitForNetwork(client, namespace, "broadcast", "to be InvalidSpec", (n) => readyCondition(n ?? {})?.reason === "InvalidSpec");
    expect(readyCondition(network ?? {})?.message).toBe('spec.gateway "10.9.0.255" is the broadcast address of spec.cidr "10.9.0.0/24"');
    expect(network?.metadata?.finalizers ?? []).not.toContain(networkFinalizer);
    await waitFor("an InvalidSpec Event", () => eventsFor(client, namespace, network?.metadata?.uid ?? ""), (events) => events.some((e) => e.reason === "InvalidSpec" && e.type === "Warning"));
    // Long enough for a resync to have come and gone: invalid objects never reach the provider.
    await Bun.sleep(context().resyncPeriodMs + 1_000);
    expect(await provider.operationCount()).toBe(callsBefore);
    await remove("broadcast");
  }, timeout);

  test("with a CRD without CEL rules the controller rejects the same inputs itself, without calling the provider", async () => {
    const { controlPlane, namespace, provider, client } = context();
    await installCrd(controlPlane, { cel: false });
    try {
      const callsBefore = await provider.operationCount();
      const cases = [
        { name: "bad-cidr", spec: { cidr: "10.0.0.300/24", gateway: "10.0.0.1" }, message: 'spec.cidr "10.0.0.300/24" is not a CIDR such as 10.0.0.0/24 or fd00::/64' },
        { name: "outside", spec: { cidr: "10.0.0.0/24", gateway: "10.1.0.1" }, message: 'spec.gateway "10.1.0.1" is outside spec.cidr "10.0.0.0/24"' },
        { name: "v6-on-v4", spec: { cidr: "10.0.0.0/24", gateway: "fd00::1" }, message: 'spec.gateway "fd00::1" is an IPv6 address but spec.cidr "10.0.0.0/24" is IPv4' },
      ];
      for (const { name, spec } of cases) expect((await applyNetwork(controlPlane, namespace, name, spec)).code).toBe(0);
      for (const { name, message } of cases) {
        const network = await waitForNetwork(client, namespace, name, "to be InvalidSpec", (n) => readyCondition(n ?? {})?.reason === "InvalidSpec");
        expect(readyCondition(network ?? {})).toMatchObject({ status: "False", message });
        await waitFor(`the InvalidSpec Event of ${name}`, () => eventsFor(client, namespace, network?.metadata?.uid ?? ""), (events) =>
          events.some((e) => e.type === "Warning" && e.reason === "InvalidSpec" && e.note === message),
        );
      }
      // Fixing the spec is all it takes: the next generation is reconciled normally.
      expect((await applyNetwork(controlPlane, namespace, "outside", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" })).code).toBe(0);
      await ready("outside");
      expect(await provider.operationCount()).toBeGreaterThan(callsBefore);
      for (const { name } of cases) await remove(name);
    } finally {
      await installCrd(controlPlane, { cel: true });
    }
  }, timeout);

  test("100 Networks created at once all become Ready", async () => {
    const { client, namespace, provider, controlPlane } = context();
    const latency = await measureCreateToReady(client, namespace, "many", 100, 600_000);
    console.log(`[${provider.kind}] 100 Networks create→Ready: p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms, all Ready after ${latency.totalMs} ms`);
    expect(latency.count).toBe(100);
    const networks = client.dynamic.resource(networkGVR, namespace);
    const list = await networks.list();
    const uids = list.items.filter((n) => n.metadata?.name?.startsWith("many-")).map((n) => n.metadata?.uid ?? "");
    expect(uids).toHaveLength(100);
    for (const uid of uids.slice(0, 10)) expect((await provider.networkOf(uid))?.subnets).toHaveLength(1);
    await kubectlOk(controlPlane, ["delete", "networks", "--all", "-n", namespace, "--wait=false"]);
    await waitFor("every Network to be deleted", async () => (await networks.list()).items.length, (n) => n === 0, 300_000);
    for (const uid of uids.slice(0, 10)) expect(await provider.networkOf(uid)).toBeUndefined();
  }, 900_000);
}
