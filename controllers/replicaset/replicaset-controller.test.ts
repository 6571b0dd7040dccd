import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { ListerWatcher } from "../../pkg/kube/list-watch.ts";
import { replicaSet, type ReplicaSet } from "../../test/replicaset/builders.ts";
import { FakeReplicaSetApi } from "../../test/replicaset/fake-api.ts";
import { settle, waitUntil } from "../../test/support/eventually.ts";
import { runControllerForTest, testControllerContext } from "../../test/support/controller-context.ts";
import { replicaSetControllerDescriptor } from "./descriptor.ts";

const podCreates = /\/pods$/;
const podDeletes = /\/pods\/[^/]+$/;

let api: FakeReplicaSetApi;
let stop: AbortController;
let informers: SharedInformerFactory;
let running: Promise<void>;
const events: string[] = [];

const recorder: EventRecorder = {
  eventf: (_regarding, _related, _type, reason) => void events.push(reason),
};

beforeEach(async () => {
  api = new FakeReplicaSetApi();
  events.length = 0;
  stop = new AbortController();
  informers = new SharedInformerFactory({
    listerWatcherFor: (gvr) => (gvr.resource === "pods" ? api.pods : api.replicaSets) as unknown as ListerWatcher,
    defaultResyncMs: 0,
  });
  const descriptor = replicaSetControllerDescriptor;
  const context = testControllerContext({ client: await api.client(), informers, events: recorder, descriptor });
  ({ running } = await runControllerForTest(descriptor, context, stop.signal));
});

afterEach(async () => {
  stop.abort();
  await running;
  await informers.shutdown();
});

/** Another update of the ReplicaSet (as from a label change): one more sync, with the Pod cache as stale as it is. */
function poke(rs: ReplicaSet, round: number): void {
  api.replicaSets.update({ ...rs, metadata: { ...rs.metadata, annotations: { poke: String(round) } } });
}

async function storedReplicaSet(): Promise<ReplicaSet> {
  const [rs] = (await api.replicaSets.list({})).items;
  return rs as ReplicaSet;
}

describe("ReplicaSetController with a lagging Pod watch and five workers", () => {
  test("creates exactly the missing Pods, however often it syncs before the watch catches up", async () => {
    api.lagPodEvents = true;
    api.replicaSets.create(replicaSet("web", 20));
    await waitUntil(() => api.podCount === 20, "20 Pods created", 10_000, 5);
    for (let round = 0; round < 10; round++) {
      poke(await storedReplicaSet(), round);
      await settle(20);
    }
    expect(api.count("POST", podCreates)).toBe(20);

    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 20, "status.replicas 20", 10_000, 5);
    await settle(20);
    expect(api.count("POST", podCreates)).toBe(20);
    expect(events.filter((reason) => reason === "SuccessfulCreate")).toHaveLength(20);
  });

  test("deletes exactly the surplus Pods, never one twice, before the watch catches up", async () => {
    api.replicaSets.create(replicaSet("web", 12));
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 12, "status.replicas 12", 10_000, 5);

    api.lagPodEvents = true;
    const scaled = structuredClone(await storedReplicaSet());
    if (scaled.spec) scaled.spec.replicas = 4;
    api.replicaSets.update({ ...scaled, metadata: { ...scaled.metadata, generation: 2 } });
    await waitUntil(() => api.podCount === 4, "8 Pods deleted", 10_000, 5);
    for (let round = 0; round < 10; round++) {
      poke(await storedReplicaSet(), round);
      await settle(20);
    }
    expect(api.count("DELETE", podDeletes)).toBe(8);

    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 4, "status.replicas 4", 10_000, 5);
    await settle(20);
    expect(api.count("DELETE", podDeletes)).toBe(8);
    expect(api.count("POST", podCreates)).toBe(12);
  });
});
