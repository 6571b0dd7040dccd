import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { FakeClock } from "../../pkg/clock/fake-clock.ts";
import { noopReconcileObserver, type ReconcileOutcome } from "../../pkg/controller/reconcile-observer.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { ListerWatcher } from "../../pkg/kube/list-watch.ts";
import type { ControllerContext } from "../../pkg/manager/controller-descriptor.ts";
import { pod, replicaSet, type Pod, type ReplicaSet } from "../../test/replicaset/builders.ts";
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
let context: ControllerContext;
const events: string[] = [];
const outcomes: ReconcileOutcome[] = [];

const recorder: EventRecorder = {
  eventf: (_regarding, _related, _type, reason) => void events.push(reason),
};

/** Runs the controller over a new fake API; its workqueue and reconciles tell time by `clock`, the real one by default. */
async function startController(clock?: FakeClock): Promise<void> {
  api = new FakeReplicaSetApi();
  events.length = 0;
  outcomes.length = 0;
  stop = new AbortController();
  informers = new SharedInformerFactory({
    listerWatcherFor: (gvr) => (gvr.resource === "pods" ? api.pods : api.replicaSets) as unknown as ListerWatcher,
    defaultResyncMs: 0,
  });
  const descriptor = replicaSetControllerDescriptor;
  context = {
    ...testControllerContext({ client: await api.client(), informers, events: recorder, descriptor }),
    reconcileObserver: { ...noopReconcileObserver, finished: (_loop, _key, outcome) => void outcomes.push(outcome) },
    clock,
  };
  ({ running } = await runControllerForTest(descriptor, context, stop.signal));
}

async function stopController(): Promise<void> {
  stop.abort();
  await running;
  await informers.shutdown();
}

beforeEach(() => startController());
afterEach(stopController);

/** Another update of the ReplicaSet (as from a label change): one more sync, with the Pod cache as stale as it is. */
function poke(rs: ReplicaSet, round: number): void {
  api.replicaSets.update({ ...rs, metadata: { ...rs.metadata, annotations: { poke: String(round) } } });
}

async function storedReplicaSet(): Promise<ReplicaSet> {
  const [rs] = (await api.replicaSets.list({})).items;
  return rs as ReplicaSet;
}

const statusWrites = /\/replicasets\/[^/]+\/status$/;
const podPatches = /\/pods\/[^/]+$/;

/** replicaset_controller_stale_sync_skips_total for the core group's Pods. */
async function staleSyncSkipsOfPods(): Promise<number> {
  const family = await context.metrics.getSingleMetric("replicaset_controller_stale_sync_skips_total")?.get();
  return family?.values.find((sample) => sample.labels.group === "" && sample.labels.resource === "pods")?.value ?? 0;
}

/** A spec change, as `kubectl scale` makes it: a new generation. */
async function scale(replicas: number): Promise<void> {
  const rs = structuredClone(await storedReplicaSet());
  if (rs.spec) rs.spec.replicas = replicas;
  api.replicaSets.update({ ...rs, metadata: { ...rs.metadata, generation: (rs.metadata?.generation ?? 1) + 1 } });
}

/** `pod` with its controller reference rewritten to another kind or name (the UID stays). */
function withControllerRef(base: Pod, change: { kind?: string; name?: string }): Pod {
  const refs = base.metadata?.ownerReferences?.map((ref) => ({ ...ref, ...change }));
  return { ...base, metadata: { ...base.metadata, ownerReferences: refs } };
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

    api.lagPodEvents = false;
    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 4, "status.replicas 4", 10_000, 5);
    await settle(20);
    expect(api.count("DELETE", podDeletes)).toBe(8);
    expect(api.count("POST", podCreates)).toBe(12);
  });
});

describe("ReplicaSetController after a Pod write whose answer was lost", () => {
  /** The Pods' paths the controller sent DELETEs to, in order. */
  const deletedPaths = () => api.requests.filter((request) => request.method === "DELETE" && podDeletes.test(request.path)).map((request) => request.path);

  test("a create carried out is not made again while the watch lags, and the rest follow once it shows", async () => {
    api.lagPodEvents = true;
    api.loseNextAnswer("POST", podCreates, true);
    api.replicaSets.create(replicaSet("web", 3));
    await waitUntil(() => api.count("POST", podCreates) === 2, "the create sent again", 10_000, 5);
    for (let round = 0; round < 5; round++) {
      poke(await storedReplicaSet(), round);
      await settle(20);
    }
    // The repeat found the name taken by its own Pod: nothing more until the cache shows it.
    expect({ stored: api.podCount, creates: api.count("POST", podCreates) }).toEqual({ stored: 1, creates: 2 });

    api.lagPodEvents = false;
    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 3, "status.replicas 3", 10_000, 5);
    await settle(20);
    expect({ stored: api.podCount, creates: api.count("POST", podCreates) }).toEqual({ stored: 3, creates: 4 });
  });

  test("a create stored but answered 503, then AlreadyExists to the REST client's own retry, is found to be the controller's own Pod", async () => {
    api.lagPodEvents = true;
    api.loseNextAnswer("POST", podCreates, true, "busy");
    api.replicaSets.create(replicaSet("web", 3));
    await waitUntil(() => api.count("POST", podCreates) === 3, "the client's retry and the controller's repeat", 10_000, 5);
    await settle(20);
    expect({ stored: api.podCount, creates: api.count("POST", podCreates) }).toEqual({ stored: 1, creates: 3 });

    api.lagPodEvents = false;
    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 3, "status.replicas 3", 10_000, 5);
    await settle(20);
    expect({ stored: api.podCount, creates: api.count("POST", podCreates) }).toEqual({ stored: 3, creates: 5 });
  });

  test("a create lost on its way is sent again and makes the Pod", async () => {
    api.loseNextAnswer("POST", podCreates, false);
    api.replicaSets.create(replicaSet("web", 3));
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 3, "status.replicas 3", 10_000, 5);
    await settle(20);
    expect({ stored: api.podCount, creates: api.count("POST", podCreates) }).toEqual({ stored: 3, creates: 4 });
  });

  test("a delete, carried out or lost on its way, is sent again to the same Pod and no other", async () => {
    api.replicaSets.create(replicaSet("web", 4));
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 4, "status.replicas 4", 10_000, 5);

    api.lagPodEvents = true;
    api.loseNextAnswer("DELETE", podDeletes, true);
    await scale(3);
    await waitUntil(() => deletedPaths().length === 2, "the delete sent again", 10_000, 5);
    api.lagPodEvents = false;
    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 3, "status.replicas 3", 10_000, 5);

    api.loseNextAnswer("DELETE", podDeletes, false);
    await scale(2);
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 2, "status.replicas 2", 10_000, 5);
    await settle(20);
    const [first, again, second, secondAgain, ...more] = deletedPaths();
    expect({ firstSentAgain: again === first, secondSentAgain: secondAgain === second, more, stored: api.podCount }).toEqual({
      firstSentAgain: true,
      secondSentAgain: true,
      more: [],
      stored: 2,
    });
  });
});

describe("ReplicaSetController when a relist hides the Pods it created", () => {
  test("Pods created, then deleted unseen before the informer listed again, are not waited for until the expectations expire", async () => {
    api.lagPodEvents = true;
    api.replicaSets.create(replicaSet("web", 2));
    await waitUntil(() => api.podCount === 2, "2 Pods created", 10_000, 5);
    await settle(20);
    // The cache now lists past both creates without ever having held either Pod: no add event will come.
    api.deleteCreatedUnseen();
    await waitUntil(() => api.podCount === 2, "2 Pods created again", 4_000, 5);
    expect(api.count("POST", podCreates)).toBe(4);
  });
});

describe("ReplicaSetController draws Pod names no Pod of its own has", () => {
  let drawing: { mockRestore(): void } | undefined;
  afterEach(() => drawing?.mockRestore());

  /**
   * Makes the next name draws give these suffixes, `bbbbb` for 0, `ccccc` for 1 (an index into the
   * API server's alphabet, five times), then random ones again. Left to chance, two names of a
   * scale-up to 1000 Pods are the same about once in 30.
   */
  function drawSuffixes(...letters: number[]): void {
    const real = crypto.getRandomValues.bind(crypto);
    drawing = spyOn(crypto, "getRandomValues").mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      const letter = array instanceof Uint32Array ? letters.shift() : undefined;
      if (letter === undefined || !(array instanceof Uint32Array)) return real(array);
      array.fill(letter);
      return array;
    });
  }

  const podNames = async () => (await api.pods.list({})).items.map((pod) => pod.metadata?.name).sort();

  test("a name drawn twice in one sync is drawn again, so each create makes a Pod of its own", async () => {
    drawSuffixes(0, 0, 1);
    api.replicaSets.create(replicaSet("web", 2));
    // Before, the second create got AlreadyExists, was taken for the first one's Pod, and the
    // ReplicaSet waited for a Pod that never came until its expectations expired (5 minutes).
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 2, "status.replicas 2", 10_000, 5);
    expect(await podNames()).toEqual(["web-bbbbb", "web-ccccc"]);
    expect(api.count("POST", podCreates)).toBe(2);
  });

  test("the name of a Pod in the cache is drawn again", async () => {
    drawSuffixes(0);
    api.replicaSets.create(replicaSet("web", 1));
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 1, "status.replicas 1", 10_000, 5);

    drawSuffixes(0, 1);
    await scale(2);
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 2, "status.replicas 2", 10_000, 5);
    expect(await podNames()).toEqual(["web-bbbbb", "web-ccccc"]);
    expect(api.count("POST", podCreates)).toBe(2);
  });
});

describe("ReplicaSetController reads its own writes", () => {
  test("a sync that starts before the Pod cache shows the Pods it created is put off, counted, and goes ahead once the cache caught up", async () => {
    api.lagPodEvents = true;
    api.replicaSets.create(replicaSet("web", 3));
    await waitUntil(async () => api.podCount === 3 && (await storedReplicaSet()).status?.observedGeneration === 1, "3 Pods and a first status", 10_000, 5);
    const firstStatusWrites = api.count("PUT", statusWrites);

    // A new generation while the Pod watch lags: kube-controller-manager 1.33 wrote a status from the stale cache.
    await scale(4);
    await waitUntil(async () => (await staleSyncSkipsOfPods()) >= 2, "the sync put off and retried", 10_000, 5);
    // A wait for the cache, not a failure: requeued without counting a reconcile error.
    expect(outcomes).toContain("requeue");
    expect(outcomes).not.toContain("error");
    expect(api.count("PUT", statusWrites)).toBe(firstStatusWrites);
    expect(api.count("POST", podCreates)).toBe(3);
    expect((await storedReplicaSet()).status?.observedGeneration).toBe(1);

    api.lagPodEvents = false;
    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 4, "status.replicas 4", 10_000, 5);
    expect((await storedReplicaSet()).status?.observedGeneration).toBe(2);
    expect(api.count("POST", podCreates)).toBe(4);
  });

  test("an adoption the Pod cache has not seen yet puts the next sync off too, so the Pod is not adopted twice", async () => {
    api.pods.create(pod({ name: "orphan" }));
    api.lagPodEvents = true;
    api.replicaSets.create(replicaSet("web", 1));
    await waitUntil(async () => (await storedReplicaSet()).status?.observedGeneration === 1, "a first status", 10_000, 5);
    expect(api.count("PATCH", podPatches)).toBe(1);

    await scale(1);
    await waitUntil(async () => (await staleSyncSkipsOfPods()) >= 2, "the sync put off and retried", 10_000, 5);
    expect(api.count("PATCH", podPatches)).toBe(1);
    expect((await storedReplicaSet()).status?.observedGeneration).toBe(1);

    api.lagPodEvents = false;
    api.releasePodEvents();
    await waitUntil(async () => (await storedReplicaSet()).status?.observedGeneration === 2, "the new generation observed", 10_000, 5);
    expect((await storedReplicaSet()).status?.replicas).toBe(1);
    expect(api.count("PATCH", podPatches)).toBe(1);
    expect(api.count("POST", podCreates)).toBe(0);
  });
});

describe("ReplicaSetController finds its Pods by their whole controller reference", () => {
  test("a Pod whose controller reference has the ReplicaSet's UID under another kind or name is neither counted nor released", async () => {
    const web = replicaSet("web", 1);
    // kube-controller-manager 1.33 matched the UID alone: it counted the first and released the second.
    api.pods.create(withControllerRef(pod({ name: "other-kind", owner: web }), { kind: "StatefulSet" }));
    api.pods.create(withControllerRef(pod({ name: "other-name", owner: web, labels: { app: "elsewhere" } }), { name: "api" }));
    api.replicaSets.create(web);
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 1, "status.replicas 1", 10_000, 5);
    await settle(20);
    expect(api.count("POST", podCreates)).toBe(1);
    expect(api.count("PATCH", podPatches)).toBe(0);
  });
});

describe("ReplicaSetController and status.terminatingReplicas", () => {
  test("against an API server that drops the field, each sync sends the status again, as kube-controller-manager 1.37 does", async () => {
    api.dropsTerminatingReplicas = true;
    api.replicaSets.create(replicaSet("web", 2));
    await waitUntil(async () => (await storedReplicaSet()).status?.replicas === 2, "status.replicas 2", 10_000, 5);
    await settle(20);
    expect((await storedReplicaSet()).status).not.toHaveProperty("terminatingReplicas");
    const before = api.count("PUT", statusWrites);
    const version = (await storedReplicaSet()).metadata?.resourceVersion;

    for (let round = 0; round < 3; round++) {
      poke(await storedReplicaSet(), round);
      await waitUntil(() => api.count("PUT", statusWrites) === before + round + 1, `status write ${round + 1}`, 10_000, 5);
    }
    await settle(20);
    // One write per sync, each changing nothing the server stores: no event, so no loop.
    expect(api.count("PUT", statusWrites)).toBe(before + 3);
    expect(Number((await storedReplicaSet()).metadata?.resourceVersion)).toBe(Number(version) + 3);
  });
});

describe("ReplicaSetController and minReadySeconds", () => {
  test("a sync that leaves a ready Pod not yet available looks again when it becomes available, though other replicas are not ready", async () => {
    await stopController();
    const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
    await startController(clock);
    api.replicaSets.create(replicaSet("web", 2, { minReadySeconds: 3 }));
    // Time passes while the Pods are created, so that a sync put off with backoff runs again.
    const timePasses = async () => void (await clock.advance(5));
    await waitUntil(async () => (await timePasses(), (await storedReplicaSet()).status?.replicas === 2), "status.replicas 2", 10_000, 5);
    const [first] = (await api.pods.list({})).items;
    // A kubelet reports the Pod ready since a whole second (as the API stores it) 1-2 s ago.
    const readySince = Math.floor(clock.now() / 1000) * 1000 - 1000;
    const availableAt = readySince + 3000;
    const lastTransitionTime = new Date(readySince).toISOString().replace(/\.\d{3}Z$/, "Z");
    api.pods.update({ ...first, status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime }] } } as Pod);
    await waitUntil(async () => (await storedReplicaSet()).status?.readyReplicas === 1, "status.readyReplicas 1", 10_000, 5);

    await clock.advance(availableAt - 1 - clock.now());
    await settle();
    expect((await storedReplicaSet()).status?.availableReplicas ?? 0).toBe(0);
    // The sync's own look at the moment the Pod becomes available, before the Pod handler's 3 s later
    // (kube-controller-manager 1.33 waited for that one, and never looked while a replica was not ready).
    await clock.advance(1);
    await waitUntil(async () => (await storedReplicaSet()).status?.availableReplicas === 1, "status.availableReplicas 1", 10_000, 5);
  });
});
