// kube-loom killed (kill -9) in the middle of a cascade: the next process rebuilds the graph
// from the API server and finishes the job. Nothing is kept locally, so nothing is lost.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { ensureNamespace, fastClient, inParallel } from "../integration/informer-fixtures.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { buildKubeLoom } from "../support/kube-loom-binary.ts";
import { configMapNames, createConfigMap, getConfigMap, kubectl, referenceTo, startGarbageCollector, waitUntil } from "./gc-fixtures.ts";

let controlPlane: ControlPlane;
let client: KubeClient;
let binary: string;

beforeAll(async () => {
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
  client = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  await controlPlane?.stop();
}, 120_000);

describe("garbage collector restarted mid-cascade", () => {
  test("a background cascade interrupted by kill -9 completes after a restart", async () => {
    const ns = "background-restart";
    await ensureNamespace(client, ns);
    const owner = await createConfigMap(client, ns, "owner");
    const names = Array.from({ length: 300 }, (_, i) => `dependent-${i}`);
    await inParallel(names, 32, (name) => createConfigMap(client, ns, name, { ownerReferences: [referenceTo(owner)] }));

    // A slow collector (10 deletions/s), so the kill lands mid-way.
    const first = await startGarbageCollector(controlPlane, binary, "gc-slow", ["--kube-api-qps=5", "--kube-api-burst=1"]);
    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns]);
    await waitUntil(async () => (await configMapNames(client, ns)).length < 250, "the cascade to start");
    expect(await first.stop("SIGKILL")).not.toBe(0);
    const left = (await configMapNames(client, ns)).length;
    expect(left).toBeGreaterThan(0);

    const second = await startGarbageCollector(controlPlane, binary, "gc-after-restart");
    try {
      await waitUntil(async () => (await configMapNames(client, ns)).length === 0, `the remaining ${left} dependents to be deleted`, 120_000);
    } finally {
      await second.stopCleanly();
    }
  }, 300_000);

  test("a foreground deletion interrupted by kill -9 completes after a restart", async () => {
    const ns = "foreground-restart";
    await ensureNamespace(client, ns);
    const owner = await createConfigMap(client, ns, "owner");
    await createConfigMap(client, ns, "held", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })], finalizers: ["example.com/hold"] });
    await createConfigMap(client, ns, "free", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });

    const first = await startGarbageCollector(controlPlane, binary, "gc-first");
    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => (await configMapNames(client, ns)).join() === "held,owner", "the cascade to reach the held dependent");
    await first.stop("SIGKILL");

    // Released while no collector runs: only a new process can finish the owner's deletion.
    await kubectl(controlPlane, ["patch", "configmap", "held", "-n", ns, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    expect((await getConfigMap(client, ns, "owner"))?.metadata?.finalizers).toEqual(["foregroundDeletion"]);

    const second = await startGarbageCollector(controlPlane, binary, "gc-second");
    try {
      await waitUntil(async () => (await configMapNames(client, ns)).length === 0, "the owner to be deleted");
    } finally {
      await second.stopCleanly();
    }
  }, 300_000);
});
