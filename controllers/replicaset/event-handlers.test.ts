import { beforeEach, describe, expect, test } from "bun:test";
import { FakeClock } from "../../pkg/clock/fake-clock.ts";
import { DeletedFinalStateUnknown } from "../../pkg/informer/deltas.ts";
import { namespaceIndex, namespaceIndexName } from "../../pkg/informer/index-funcs.ts";
import { Indexer } from "../../pkg/informer/indexer.ts";
import { Lister } from "../../pkg/informer/lister.ts";
import { pod, replicaSet, type Pod, type ReplicaSet } from "../../test/replicaset/builders.ts";
import type { KeyQueue } from "../../pkg/controller/handlers.ts";
import type { AddOptions, Priority } from "../../pkg/workqueue/priority.ts";
import { ItemExponentialFailureRateLimiter } from "../../pkg/workqueue/rate-limiters.ts";
import { RateLimitingQueue } from "../../pkg/workqueue/rate-limiting-queue.ts";
import { ReplicaSetEventHandlers } from "./event-handlers.ts";
import { PodExpectations } from "./expectations.ts";

class RecordingQueue implements KeyQueue {
  added: string[] = [];
  /** The priority of each add, in the same order ("normal" when none was given). */
  priorities: Priority[] = [];
  delayed: { key: string; delayMs: number }[] = [];
  add(key: string, options?: AddOptions): void {
    this.added.push(key);
    this.priorities.push(options?.priority ?? "normal");
  }
  addAfter(key: string, delayMs: number): void {
    this.delayed.push({ key, delayMs });
  }
}

const web = replicaSet("web", 3);
const api = replicaSet("api", 1, { selector: { tier: "front" } });
let queue: RecordingQueue;
let expectations: PodExpectations;
let handlers: ReplicaSetEventHandlers;
let forgotten: { owner: string; uid: string | undefined }[];
const ownWrites = { forget: (owner: string, uid?: string) => void forgotten.push({ owner, uid }) };

beforeEach(() => {
  queue = new RecordingQueue();
  expectations = new PodExpectations(new FakeClock());
  forgotten = [];
  const indexer = new Indexer<ReplicaSet>({ [namespaceIndexName]: namespaceIndex });
  for (const rs of [web, api]) indexer.add(rs);
  handlers = new ReplicaSetEventHandlers(queue, expectations, new Lister(indexer), ownWrites);
});

function updated(before: Pod, change: (pod: Pod) => Pod): Pod {
  const after = change(structuredClone(before));
  return { ...after, metadata: { ...after.metadata, resourceVersion: "2" } };
}

describe("Pod events", () => {
  test("a Pod with a controller reference counts as an observed creation of its ReplicaSet", () => {
    expectations.expectCreations("ns/web", 1);
    handlers.podHandler.onAdd?.(pod({ name: "a", owner: web }), false);
    expect(queue.added).toEqual(["ns/web"]);
    expect(expectations.satisfied("ns/web")).toBe(true);
  });

  test("a Pod whose controller reference names an unknown UID or another kind concerns nobody", () => {
    handlers.podHandler.onAdd?.(pod({ name: "a", owner: replicaSet("web", 1, { uid: "stale" }) }), false);
    const foreign = pod({ name: "b", owner: web });
    foreign.metadata?.ownerReferences?.forEach((ref) => (ref.kind = "StatefulSet"));
    handlers.podHandler.onAdd?.(foreign, false);
    expect(queue.added).toEqual([]);
  });

  test("an orphan wakes every ReplicaSet whose selector matches it, without observing a creation", () => {
    expectations.expectCreations("ns/web", 1);
    handlers.podHandler.onAdd?.(pod({ name: "a", labels: { app: "web", tier: "front" } }), false);
    expect(queue.added.sort()).toEqual(["ns/api", "ns/web"]);
    expect(expectations.satisfied("ns/web")).toBe(false);
    handlers.podHandler.onAdd?.(pod({ name: "b", labels: {} }), false);
    expect(queue.added).toHaveLength(2);
  });

  test("a Pod that first appears already being deleted counts as a deletion", () => {
    expectations.expectDeletions("ns/web", ["ns/a"]);
    handlers.podHandler.onAdd?.(pod({ name: "a", owner: web, deleting: true }), true);
    expect(expectations.satisfied("ns/web")).toBe(true);
  });

  test("an update with an unchanged resourceVersion (a resync) is ignored", () => {
    const same = pod({ name: "a", owner: web });
    handlers.podHandler.onUpdate?.(same, same);
    expect(queue.added).toEqual([]);
  });

  test("a deletionTimestamp counts as the deletion, once, even if the delete follows", () => {
    expectations.expectDeletions("ns/web", ["ns/a", "ns/b"]);
    const before = pod({ name: "a", owner: web });
    const terminating = updated(before, (p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: "2030-01-01T00:00:00Z" } }));
    handlers.podHandler.onUpdate?.(before, terminating);
    handlers.podHandler.onDelete?.(terminating);
    expect(expectations.satisfied("ns/web")).toBe(false);
    handlers.podHandler.onDelete?.(new DeletedFinalStateUnknown("ns/b", pod({ name: "b", owner: web })));
    expect(expectations.satisfied("ns/web")).toBe(true);
    expect(queue.added).toEqual(["ns/web", "ns/web", "ns/web"]);
  });

  test("a changed controller reference wakes the old and the new owner", () => {
    const before = pod({ name: "a", owner: web });
    const after = updated(pod({ name: "a", owner: api }), (p) => p);
    handlers.podHandler.onUpdate?.(before, after);
    expect(queue.added).toEqual(["ns/web", "ns/api"]);
  });

  test("a released Pod whose labels changed wakes the ReplicaSets that now select it", () => {
    const before = pod({ name: "a", labels: { app: "old" } });
    handlers.podHandler.onUpdate?.(before, updated(before, (p) => ({ ...p, metadata: { ...p.metadata, labels: { tier: "front" } } })));
    expect(queue.added).toEqual(["ns/api"]);
  });

  test("a Pod turning ready under minReadySeconds is looked at again exactly when it should be available", () => {
    const slow = replicaSet("slow", 1, { minReadySeconds: 10 });
    const indexer = new Indexer<ReplicaSet>({ [namespaceIndexName]: namespaceIndex });
    indexer.add(slow);
    handlers = new ReplicaSetEventHandlers(queue, expectations, new Lister(indexer), ownWrites);
    const before = pod({ name: "a", owner: slow });
    handlers.podHandler.onUpdate?.(before, updated(pod({ name: "a", owner: slow, readyFor: 0 }), (p) => p));
    expect(queue.added).toEqual(["ns/slow"]);
    expect(queue.delayed).toEqual([{ key: "ns/slow", delayMs: 10_000 }]);
  });
});

describe("ReplicaSet events", () => {
  test("adds and updates enqueue the ReplicaSet", () => {
    handlers.replicaSetHandler.onAdd?.(web, true);
    handlers.replicaSetHandler.onUpdate?.(web, web);
    expect(queue.added).toEqual(["ns/web", "ns/web"]);
  });

  test("a delete, or a re-create seen as an update with a new UID, forgets the expectations and that incarnation's own writes", () => {
    expectations.expectCreations("ns/web", 5);
    handlers.replicaSetHandler.onUpdate?.(web, replicaSet("web", 3, { uid: "recreated" }));
    expect(expectations.satisfied("ns/web")).toBe(true);
    expectations.expectCreations("ns/web", 5);
    handlers.replicaSetHandler.onDelete?.(new DeletedFinalStateUnknown("ns/web", web));
    expect(expectations.satisfied("ns/web")).toBe(true);
    expect(forgotten).toEqual([
      { owner: "ns/web", uid: "uid-web" },
      { owner: "ns/web", uid: "uid-web" },
    ]);
  });
});

describe("priorities: state replayed from the informers waits behind live changes", () => {
  test("a ReplicaSet from the initial list or a resync is low; one created or changed since is normal", () => {
    handlers.replicaSetHandler.onAdd?.(web, true);
    handlers.replicaSetHandler.onUpdate?.(web, web);
    handlers.replicaSetHandler.onAdd?.(api, false);
    handlers.replicaSetHandler.onUpdate?.(web, { ...web, metadata: { ...web.metadata, resourceVersion: "2" } });
    handlers.replicaSetHandler.onDelete?.(api);
    expect(queue.added).toEqual(["ns/web", "ns/web", "ns/api", "ns/web", "ns/api"]);
    expect(queue.priorities).toEqual(["low", "low", "normal", "normal", "normal"]);
  });

  test("a Pod from the initial list wakes its owner or selectors at low priority, still counting as observed", () => {
    expectations.expectCreations("ns/web", 1);
    handlers.podHandler.onAdd?.(pod({ name: "a", owner: web }), true);
    handlers.podHandler.onAdd?.(pod({ name: "orphan", labels: { tier: "front" } }), true);
    handlers.podHandler.onAdd?.(pod({ name: "b", owner: web, deleting: true }), true);
    handlers.podHandler.onAdd?.(pod({ name: "c", owner: web }), false);
    expect(expectations.satisfied("ns/web")).toBe(true);
    expect(queue.added).toEqual(["ns/web", "ns/api", "ns/web", "ns/web"]);
    expect(queue.priorities).toEqual(["low", "low", "low", "normal"]);
  });

  test("after a start with 1,000 ReplicaSets, one a user scales is synced next, and so are the events of its new Pods", async () => {
    const replicaSets = Array.from({ length: 1000 }, (_, i) => replicaSet(`rs-${i}`, 1, { selector: { rs: `rs-${i}` } }));
    const indexer = new Indexer<ReplicaSet>({ [namespaceIndexName]: namespaceIndex });
    for (const rs of replicaSets) indexer.add(rs);
    const workqueue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(5, 1000), { clock: new FakeClock() });
    handlers = new ReplicaSetEventHandlers(workqueue, expectations, new Lister(indexer), ownWrites);
    for (const rs of replicaSets) {
      handlers.replicaSetHandler.onAdd?.(rs, true);
      handlers.podHandler.onAdd?.(pod({ name: `${rs.metadata?.name}-pod`, owner: rs }), true);
    }
    const take = async () => {
      const { item } = await workqueue.get();
      if (item === undefined) throw new Error("queue shut down");
      return item;
    };
    expect(await take()).toBe("ns/rs-0");

    // While the only worker syncs rs-0, a user scales rs-700 and the informer resyncs rs-300.
    const rs700 = replicaSets[700] as ReplicaSet;
    const scaled = structuredClone(rs700);
    if (scaled.metadata) scaled.metadata.resourceVersion = "2";
    if (scaled.spec) scaled.spec.replicas = 3;
    indexer.update(scaled);
    handlers.replicaSetHandler.onUpdate?.(rs700, scaled);
    handlers.replicaSetHandler.onUpdate?.(replicaSets[300] as ReplicaSet, replicaSets[300] as ReplicaSet);
    workqueue.done("ns/rs-0");
    expect(await take()).toBe("ns/rs-700");

    // Its sync creates two Pods; their watch events bring it back ahead of the 998 keys still waiting.
    expectations.expectCreations("ns/rs-700", 2);
    for (const name of ["new-1", "new-2"]) handlers.podHandler.onAdd?.(pod({ name, owner: scaled }), false);
    workqueue.done("ns/rs-700");
    expect(await take()).toBe("ns/rs-700");
    expect(expectations.satisfied("ns/rs-700")).toBe(true);
    workqueue.done("ns/rs-700");
    expect(workqueue.len()).toBe(998);
    expect(await take()).toBe("ns/rs-1");
  });
});
