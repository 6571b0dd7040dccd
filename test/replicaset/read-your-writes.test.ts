// Read your own writes (KEP-5647) against a real API server: the replicaset controller runs in
// this process over informers whose Pod watch the test can hold back, so its cache lags behind
// the Pods it created for as long as the test says. A sync starting meanwhile is put off (no
// status computed from the stale cache), counted in replicaset_controller_stale_sync_skips_total,
// and goes ahead once the Pod events arrive.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { replicaSetControllerDescriptor } from "../../controllers/replicaset/descriptor.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ListerWatcher, ListOptions, WatchOptions } from "../../pkg/kube/list-watch.ts";
import type { KubeObject, ObjectList, WatchEvent } from "../../pkg/kube/objects.ts";
import type { ControllerContext } from "../../pkg/manager/controller-descriptor.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { runControllerForTest, testControllerContext } from "../support/controller-context.ts";
import { waitUntil } from "../support/eventually.ts";
import { apply, createNamespace, getReplicaSet, kubectl, listPods, replicaSetManifest, waitForStatus } from "./replicaset-fixture.ts";

/** A ListerWatcher whose watch events wait, in order, while the test holds them. */
class HeldWatch implements ListerWatcher {
  private released: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(private readonly inner: ListerWatcher) {}

  hold(): void {
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  resume(): void {
    this.release?.();
  }

  list(options: ListOptions, signal?: AbortSignal): Promise<ObjectList<KubeObject>> {
    return this.inner.list(options, signal);
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<KubeObject>>> {
    const events = await this.inner.watch(options, signal);
    const gate = this;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of events) {
          await gate.released;
          yield event;
        }
      },
    };
  }
}

let controlPlane: ControlPlane;
let client: KubeClient;
let informers: SharedInformerFactory;
let podWatch: HeldWatch;
let context: ControllerContext;
const stop = new AbortController();
let running: Promise<void> | undefined;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  client = await fastClient(controlPlane.kubeconfigPath);
  informers = new SharedInformerFactory({
    listerWatcherFor: (gvr, scope) => {
      const real = client.dynamic.listerWatcher(gvr, scope);
      if (gvr.resource !== "pods") return real;
      podWatch = new HeldWatch(real);
      return podWatch;
    },
    defaultResyncMs: 0,
  });
  const descriptor = replicaSetControllerDescriptor;
  context = testControllerContext({ client, informers, events: { eventf: () => undefined }, descriptor });
  ({ running } = await runControllerForTest(descriptor, context, stop.signal));
}, 300_000);

afterAll(async () => {
  podWatch?.resume();
  stop.abort();
  await running;
  await informers?.shutdown();
  await controlPlane?.stop();
});

/** replicaset_controller_stale_sync_skips_total{group="",resource="pods"} */
async function staleSyncSkipsOfPods(): Promise<number> {
  const family = await context.metrics.getSingleMetric("replicaset_controller_stale_sync_skips_total")?.get();
  return family?.values.find((sample) => sample.labels.group === "" && sample.labels.resource === "pods")?.value ?? 0;
}

describe("read your own writes", () => {
  test("a sync that starts before the Pod cache shows the controller's own creations waits for them", async () => {
    const namespace = await createNamespace(client, "read-your-writes");
    podWatch.hold();
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 2 })]);
    await waitUntil(
      async () => (await listPods(client, namespace)).length === 2 && (await getReplicaSet(client, namespace, "web")).status?.observedGeneration === 1,
      "two Pods created and a first status written, from a cache that has not seen them",
      30_000,
      50,
    );

    // A new generation while the cache lags: kube-controller-manager 1.33 would write a status for it from the stale cache.
    await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=3"]);
    await waitUntil(async () => (await staleSyncSkipsOfPods()) >= 3, "syncs put off and retried", 30_000, 50);
    const meanwhile = await getReplicaSet(client, namespace, "web");
    expect(meanwhile.metadata?.generation).toBe(2);
    expect(meanwhile.status?.observedGeneration).toBe(1);
    expect(await listPods(client, namespace)).toHaveLength(2);

    podWatch.resume();
    await waitForStatus(client, namespace, "web", { replicas: 3, fullyLabeledReplicas: 3 }, 30_000);
    expect(await listPods(client, namespace)).toHaveLength(3);
  }, 120_000);
});
