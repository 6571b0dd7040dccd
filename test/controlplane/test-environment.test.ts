// kube-loom/testing's TestEnvironment as a user meets it: binaries found through
// KUBEBUILDER_ASSETS, CRDs served when start() resolves, a namespace per test, controllers run
// in this process with their flags, metrics and Events, and nothing left behind by stop().
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { controller } from "../../pkg/builder/controller-builder.ts";
import { type ObjectOf, resources, resourceType } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { ControllerDescriptor } from "../../pkg/manager/controller-descriptor.ts";
import { flagGroup } from "../../pkg/options/flag-group.ts";
import { eventually, TestEnvironment } from "../../pkg/testing/mod.ts";
import { isProcessAlive } from "../../pkg/testing/process-alive.ts";
import { kubebuilderAssets } from "./kubebuilder-assets.ts";

const SLOW = 180_000;
type ConfigMap = ObjectOf<typeof resources.configMaps>;
type Network = KubeObject & { spec?: { cidr?: string; gateway?: string } };
const networks = resourceType<Network>({ group: "samplecrd.k8s.io", version: "v1", resource: "networks", kind: "Network", namespaced: true });

const stampFlag = flagGroup("Stamp controller").string("stamp-value", "unset", "The value each ConfigMap's stamp label gets.");
/** Labels every ConfigMap in the namespace with --stamp-value and records an Event saying so. */
const stamper = (namespace: string) =>
  controller("stamper")
    .flags(stampFlag)
    .for(resources.configMaps, { scope: { namespace } })
    .complete(({ client, values, events }) => async ({ name, object }) => {
      const stamp = values.get(stampFlag);
      if (!object || object.metadata?.labels?.stamp === stamp) return;
      await client.dynamic.resource(resources.configMaps, namespace).patch(name, { metadata: { labels: { stamp } } }, "merge");
      events.eventf(object, undefined, "Normal", "Stamped", "Stamp", `stamped ${stamp}`);
    });

let env: TestEnvironment;

beforeAll(async () => {
  process.env.KUBEBUILDER_ASSETS = await kubebuilderAssets();
  env = await TestEnvironment.start({ crds: [resolve(import.meta.dir, "../../config/crd")] });
}, SLOW);

afterAll(async () => {
  await env?.stop();
}, SLOW);

describe("TestEnvironment", () => {
  test("the CRDs are served as soon as start() resolves; create and update fill in apiVersion and kind from the resource", async () => {
    const namespace = await env.namespace("crd");
    const client = env.client.dynamic.resource<Network>(networks, namespace);
    const created = await client.create({ metadata: { name: "net" }, spec: { cidr: "10.1.0.0/24", gateway: "10.1.0.1" } });
    expect(created.metadata?.uid).toBeString();
    expect(created.kind).toBe("Network");
    const { apiVersion: _apiVersion, kind: _kind, ...bare } = created;
    const updated = await client.update({ ...bare, spec: { cidr: "10.1.0.0/24", gateway: "10.1.0.254" } });
    expect(updated.spec?.gateway).toBe("10.1.0.254");
  }, SLOW);

  test("namespace(): a new one each time; a prefix that is no DNS label is refused", async () => {
    const [a, b] = await Promise.all([env.namespace("same"), env.namespace("same")]);
    expect(a).toMatch(/^same-[0-9a-f]{6}$/);
    expect(b).not.toBe(a);
    await expect(env.namespace("Not_A_Label")).rejects.toThrow('namespace prefix "Not_A_Label": expected lower-case letters, digits and "-", at most 56 characters');
  }, SLOW);

  test("run(): the controller reads its flag, writes through the env's client, records Events and reports metrics", async () => {
    const namespace = await env.namespace("stamp");
    const running = await env.run([stamper(namespace)], { flags: ["--stamp-value=blue"] });
    const configMaps = env.client.dynamic.resource<ConfigMap>(resources.configMaps, namespace);
    await configMaps.create({ metadata: { name: "one" } });
    await eventually(async () => expect((await configMaps.get("one")).metadata?.labels?.stamp).toBe("blue"), { timeoutMs: 30_000, message: "the stamp" });
    const events = env.client.dynamic.resource<KubeObject & { reason?: string; note?: string }>(resources.events, namespace);
    const stamped = await eventually(async () => (await events.list()).items.find((event) => event.reason === "Stamped") ?? false, { timeoutMs: 30_000 });
    expect(stamped.note).toBe("stamped blue");
    const metrics = await running.metrics.metrics();
    expect(metrics).toContain('workqueue_adds_total{name="stamper"}');
    expect(metrics).toContain('controller_runtime_reconcile_total{controller="stamper",result="success"}');
    await running.stop();
  }, SLOW);

  test("run(): an unknown flag is refused before anything starts", async () => {
    await expect(env.run([stamper("default")], { flags: ["--stamp-valu=red"] })).rejects.toThrow(
      "unknown flag --stamp-valu: expected one of the flags the controllers declare (--stamp-value)",
    );
  }, SLOW);

  test("run(): two controllers of one name are refused before anything starts, as the command refuses them", async () => {
    const dup = (): ControllerDescriptor => ({ name: "dup", aliases: [], enabledByDefault: true, flags: [], create: async () => { throw new Error("started"); } });
    await expect(env.run([dup(), dup()])).rejects.toThrow('two controllers are named "dup" (entries 1 and 2 of the controller list)');
  }, SLOW);

  test("run(): caches that never sync fail the run, naming the informer and why", async () => {
    const missing = resourceType({ group: "nowhere.example.com", version: "v1", resource: "ghosts", kind: "Ghost", namespaced: true });
    const haunted: ControllerDescriptor = {
      name: "haunted",
      aliases: [],
      enabledByDefault: true,
      flags: [],
      create: async ({ informers }) => ({ name: "haunted", caches: [informers.forResource(missing).informer], start: async () => undefined }),
    };
    const error = await env.run([haunted], { syncTimeoutMs: 2_000 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toStartWith("controller haunted: caches not synced after 2000 ms: ghosts.v1.nowhere.example.com");
  }, SLOW);

  test("stop(): a reconcile still running reads a cache that is still kept up to date", async () => {
    const namespace = await env.namespace("drain");
    let stopping = () => {};
    const stopAsked = new Promise<void>((resolve) => (stopping = resolve));
    let sawChange: boolean | undefined;
    const waiter = controller("waiter")
      .for(resources.configMaps, { scope: { namespace } })
      .complete(({ cached }) => async ({ key }) => {
        if (sawChange !== undefined) return;
        await stopAsked;
        // The test changes the object once stop() has begun; the cache should show it within the grace period.
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline && cached(key)?.metadata?.labels?.changed !== "yes") await Bun.sleep(50);
        sawChange = cached(key)?.metadata?.labels?.changed === "yes";
      });
    const running = await env.run([waiter], { shutdownTimeoutMs: 10_000 });
    const configMaps = env.client.dynamic.resource<ConfigMap>(resources.configMaps, namespace);
    await configMaps.create({ metadata: { name: "held" } });
    await Bun.sleep(500);
    const stopped = running.stop();
    await configMaps.patch("held", { metadata: { labels: { changed: "yes" } } }, "merge");
    stopping();
    await stopped;
    expect(sawChange).toBe(true);
  }, SLOW);

  test("stop() on the run reports a controller that failed", async () => {
    const failing: ControllerDescriptor = {
      name: "failing",
      aliases: [],
      enabledByDefault: true,
      flags: [],
      create: async () => ({ name: "failing", start: async () => Promise.reject(new Error("boom")) }),
    };
    const running = await env.run([failing]);
    await expect(running.stop()).rejects.toThrow("controller failing failed: boom");
  }, SLOW);
});

describe("TestEnvironment.stop", () => {
  test("ends the controllers still running, etcd and kube-apiserver, and removes their folder", async () => {
    const own = await TestEnvironment.start();
    const namespace = await own.namespace();
    await own.run([stamper(namespace)]);
    const { pids, dir } = { pids: own.controlPlane.pids, dir: own.controlPlane.dir };
    expect(pids).toHaveLength(2);
    await own.stop();
    expect(pids.filter(isProcessAlive)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  }, SLOW);
});
