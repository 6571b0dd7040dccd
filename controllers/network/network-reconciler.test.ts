import { beforeEach, describe, expect, test } from "bun:test";
import { FakeClock } from "../../pkg/clock/fake-clock.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import { silentLogger } from "../../pkg/log/logger.ts";
import { NetworkReconciler } from "./network-reconciler.ts";
import { networkFinalizer, type Network, type NetworkSpec, type NetworkStatus } from "./network-resource.ts";
import { readyCondition } from "./network-status.ts";
import type { NetworkWriter } from "./network-writer.ts";
import { ProviderOutageBackoff } from "./provider-outage-backoff.ts";
import { MemoryNetworkProvider } from "./providers/memory-provider.ts";
import { ProviderUnavailableError } from "./providers/provider.ts";
import { wrapNetworkProvider, type ProviderOperation } from "./providers/provider-wrapper.ts";

/** Network objects as the API server would keep them, behind the reconciler's writer and cache. */
class FakeCluster implements NetworkWriter {
  readonly objects = new Map<string, Network>();
  writes = 0;

  put(name: string, spec: NetworkSpec, extra: Partial<Network["metadata"]> = {}): Network {
    const existing = this.objects.get(name);
    const generation = (existing?.metadata?.generation ?? 0) + 1;
    const network: Network = {
      ...existing,
      apiVersion: "samplecrd.k8s.io/v1",
      kind: "Network",
      metadata: { ...existing?.metadata, name, namespace: "ns", uid: existing?.metadata?.uid ?? `uid-${name}`, generation, ...extra },
      spec,
    };
    this.objects.set(name, network);
    return network;
  }

  markDeleted(name: string): void {
    const network = this.objects.get(name);
    if (network) this.objects.set(name, { ...network, metadata: { ...network.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } });
  }

  async addFinalizer(network: Network): Promise<Network> {
    this.writes++;
    const updated = { ...network, metadata: { ...network.metadata, finalizers: [...(network.metadata?.finalizers ?? []), networkFinalizer] } };
    this.objects.set(network.metadata?.name ?? "", updated);
    return updated;
  }

  async removeFinalizer(network: Network): Promise<void> {
    this.writes++;
    this.objects.delete(network.metadata?.name ?? "");
  }

  async writeStatus(network: Network, status: NetworkStatus): Promise<void> {
    this.writes++;
    const current = this.objects.get(network.metadata?.name ?? "");
    if (current) this.objects.set(network.metadata?.name ?? "", { ...current, status });
  }
}

interface RecordedEvent {
  type: string;
  reason: string;
  note: string;
}

let clock: FakeClock;
let cluster: FakeCluster;
let memory: MemoryNetworkProvider;
let calls: ProviderOperation[];
let failWith: Error | undefined;
/** Runs before a provider call, as another hand on the cloud would. */
let beforeCall: ((operation: ProviderOperation) => Promise<void>) | undefined;
let events: RecordedEvent[];
let recovered: string[];
let reconciler: NetworkReconciler;
const signal = new AbortController().signal;

beforeEach(() => {
  clock = new FakeClock();
  cluster = new FakeCluster();
  memory = new MemoryNetworkProvider();
  calls = [];
  failWith = undefined;
  beforeCall = undefined;
  events = [];
  recovered = [];
  const provider = wrapNetworkProvider("memory", async (operation, call) => {
    calls.push(operation);
    await beforeCall?.(operation);
    if (failWith) throw failWith;
    return call(memory);
  });
  const recorder: EventRecorder = { eventf: (_regarding, _related, type, reason, _action, note) => void events.push({ type, reason, note }) };
  reconciler = new NetworkReconciler({
    writer: cluster,
    provider,
    outage: new ProviderOutageBackoff({ initialMs: 1_000, maxMs: 30_000, clock, onRecovered: (keys) => recovered.push(...keys) }),
    events: recorder,
    logger: silentLogger,
    clock,
  });
});

const network = (name: string) => cluster.objects.get(name);
/** What the builder hands the reconciler for a Network of namespace "ns": its key and the cached object. */
const request = (name: string) => ({ key: `ns/${name}`, namespace: "ns", name, object: network(name) });
const ready = (name: string) => readyCondition(network(name) ?? {});

describe("NetworkReconciler", () => {
  test("creates a network and subnet, then reports Ready with the IDs; a second pass changes nothing", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    expect(await reconciler.reconcile(request("a"), signal)).toBeUndefined();
    const [actual] = memory.list();
    expect(actual).toMatchObject({ name: "ns/a", ownerUID: "uid-a", subnets: [{ cidr: "10.0.0.0/24", gatewayIP: "10.0.0.1" }] });
    expect(network("a")?.metadata?.finalizers).toEqual([networkFinalizer]);
    expect(network("a")?.status).toMatchObject({ networkID: actual?.id, subnetID: actual?.subnets[0]?.id, observedGeneration: 1 });
    expect(ready("a")).toMatchObject({ status: "True", reason: "Provisioned" });
    expect(events.map((e) => e.reason)).toEqual(["NetworkCreated"]);

    const writes = cluster.writes;
    calls = [];
    await reconciler.reconcile(request("a"), signal);
    expect(calls).toEqual(["findNetwork"]);
    expect(cluster.writes).toBe(writes);
    expect(events).toHaveLength(1);
  });

  test("a gateway change updates the subnet; a CIDR change replaces it; a name change renames", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    await reconciler.reconcile(request("a"), signal);
    const subnetID = network("a")?.status?.subnetID;

    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.254" });
    await reconciler.reconcile(request("a"), signal);
    expect(memory.list()[0]?.subnets).toEqual([{ id: subnetID ?? "", cidr: "10.0.0.0/24", gatewayIP: "10.0.0.254" }]);
    expect(events.at(-1)?.reason).toBe("GatewayUpdated");

    cluster.put("a", { cidr: "fd00:1::/64", gateway: "fd00:1::1", name: "custom" });
    await reconciler.reconcile(request("a"), signal);
    const [actual] = memory.list();
    expect(actual?.name).toBe("custom");
    expect(actual?.subnets).toHaveLength(1);
    expect(actual?.subnets[0]).toMatchObject({ cidr: "fd00:1::/64", gatewayIP: "fd00:1::1" });
    expect(actual?.subnets[0]?.id).not.toBe(subnetID);
    expect(events.at(-1)).toMatchObject({ reason: "NetworkRenamed", type: "Normal" });
    expect(events.at(-1)?.note).toContain(`replaced memory subnet ${subnetID}`);
    expect(network("a")?.status?.observedGeneration).toBe(3);
  });

  test("drift found on a resync is repaired and reported as a Warning", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    await reconciler.reconcile(request("a"), signal);
    const before = network("a")?.status?.networkID ?? "";
    await memory.deleteNetwork(before);
    await reconciler.reconcile(request("a"), signal);
    expect(network("a")?.status?.networkID).not.toBe(before);
    expect(memory.list()).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "Warning", reason: "DriftRepaired" });
  });

  test("a network deleted by hand while a sync is under way is drift, repaired in that sync", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    await reconciler.reconcile(request("a"), signal);
    const before = network("a")?.status?.networkID ?? "";
    // Deleting a network by hand takes its subnet first: the sync reads the network in between,
    // and it is gone by the time the sync makes the subnet again.
    await memory.deleteSubnet(network("a")?.status?.subnetID ?? "");
    beforeCall = async (operation) => {
      if (operation !== "createSubnet") return;
      beforeCall = undefined;
      await memory.deleteNetwork(before);
    };
    await reconciler.reconcile(request("a"), signal);
    expect(ready("a")).toMatchObject({ status: "True", reason: "Provisioned" });
    expect(network("a")?.status?.networkID).not.toBe(before);
    expect(memory.list()).toHaveLength(1);
    expect(events.map((event) => event.reason)).not.toContain("ProviderError");
    expect(events.at(-1)).toMatchObject({ type: "Warning", reason: "DriftRepaired" });
  });

  test("an invalid spec: Ready=False InvalidSpec and a Warning naming the field, no provider call, no finalizer, no retry", async () => {
    cluster.put("bad", { cidr: "10.0.0.0/24", gateway: "10.1.0.1" });
    expect(await reconciler.reconcile(request("bad"), signal)).toBeUndefined();
    expect(calls).toEqual([]);
    expect(ready("bad")).toMatchObject({ status: "False", reason: "InvalidSpec", message: 'spec.gateway "10.1.0.1" is outside spec.cidr "10.0.0.0/24"' });
    expect(network("bad")?.metadata?.finalizers).toBeUndefined();
    expect(events).toEqual([{ type: "Warning", reason: "InvalidSpec", note: 'spec.gateway "10.1.0.1" is outside spec.cidr "10.0.0.0/24"' }]);
    // The same invalid spec again (a resync): no new Event, no write.
    const writes = cluster.writes;
    await reconciler.reconcile(request("bad"), signal);
    expect(events).toHaveLength(1);
    expect(cluster.writes).toBe(writes);
  });

  test("an invalid spec after a valid one keeps the provider network and the IDs", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    await reconciler.reconcile(request("a"), signal);
    const networkID = network("a")?.status?.networkID;
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.0" });
    await reconciler.reconcile(request("a"), signal);
    expect(ready("a")?.reason).toBe("InvalidSpec");
    expect(network("a")?.status?.networkID).toBe(networkID);
    expect(memory.list()).toHaveLength(1);
  });

  test("deletion deletes the provider network, then removes the finalizer", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    await reconciler.reconcile(request("a"), signal);
    cluster.markDeleted("a");
    await reconciler.reconcile(request("a"), signal);
    expect(memory.list()).toEqual([]);
    expect(network("a")).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ reason: "NetworkDeleted", note: expect.stringContaining("deleted memory network") });
  });

  test("deletion when the provider network is already gone still removes the finalizer", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    await reconciler.reconcile(request("a"), signal);
    await memory.deleteNetwork(network("a")?.status?.networkID ?? "");
    cluster.markDeleted("a");
    await reconciler.reconcile(request("a"), signal);
    expect(network("a")).toBeUndefined();
    expect(events.at(-1)?.note).toBe("no memory network was left to delete");
  });

  test("a provider error: Ready=False ProviderError and a thrown error for the rate-limited retry", async () => {
    cluster.put("a", { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    failWith = new Error("Neutron POST /v2.0/networks: OverQuota: Quota exceeded for resources: ['network']. (HTTP 409)");
    await expect(reconciler.reconcile(request("a"), signal)).rejects.toThrow("OverQuota");
    expect(ready("a")).toMatchObject({ status: "False", reason: "ProviderError", message: failWith.message });
    expect(events.at(-1)).toMatchObject({ type: "Warning", reason: "ProviderError" });
    failWith = undefined;
    await reconciler.reconcile(request("a"), signal);
    expect(ready("a")?.status).toBe("True");
  });

  test("an unreachable provider: ProviderUnavailable, one probe at a time with growing intervals, everyone requeued on recovery", async () => {
    for (const name of ["a", "b", "c"]) cluster.put(name, { cidr: "10.0.0.0/24", gateway: "10.0.0.1" });
    failWith = new ProviderUnavailableError("Neutron GET http://neutron/v2.0/networks: Unable to connect (ConnectionRefused)");
    expect(await reconciler.reconcile(request("a"), signal)).toEqual({ requeueAfterMs: 1_000 });
    expect(await reconciler.reconcile(request("b"), signal)).toEqual({ requeueAfterMs: 1_000 });
    expect(await reconciler.reconcile(request("c"), signal)).toEqual({ requeueAfterMs: 1_000 });
    expect(calls).toHaveLength(1);
    for (const name of ["a", "b", "c"]) {
      expect(ready(name)).toMatchObject({ status: "False", reason: "ProviderUnavailable", message: `memory is unavailable: ${failWith.message}` });
    }
    await clock.advance(1_000);
    expect(await reconciler.reconcile(request("b"), signal)).toEqual({ requeueAfterMs: 2_000 });
    expect(calls).toHaveLength(2);
    expect(await reconciler.reconcile(request("c"), signal)).toEqual({ requeueAfterMs: 2_000 });
    expect(calls).toHaveLength(2);

    failWith = undefined;
    await clock.advance(2_000);
    await reconciler.reconcile(request("c"), signal);
    expect(ready("c")?.status).toBe("True");
    expect(recovered.sort()).toEqual(["ns/a", "ns/b"]);
    // One Warning per Network when it became unavailable, not one per attempt.
    expect(events.filter((e) => e.reason === "ProviderUnavailable")).toHaveLength(3);
  });
});
