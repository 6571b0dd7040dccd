// The soak's independent watch: its own informers (the project's, in this process, over a direct
// admin connection that no fault cuts) on the objects the workload touches. Every change goes
// through a RevisionOrder to the checkers; the Pod cache also tells the driver which Pods exist.
import { networkGVR } from "../../controllers/network/network-resource.ts";
import { ExponentialBackoff } from "../../pkg/flowcontrol/backoff.ts";
import { DeletedFinalStateUnknown } from "../../pkg/informer/deltas.ts";
import { isResync } from "../../pkg/informer/event-handler.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { SharedIndexInformer } from "../../pkg/informer/shared-informer.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { type GroupVersionResource, resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { ObservedChange, ObservedResource } from "./observed-change.ts";
import { RevisionOrder } from "./revision-order.ts";

export interface ObservedNamespaces {
  /** ReplicaSets and their Pods. */
  replicaSets: string;
  /** Owner trees: ConfigMaps, Secrets and Networks with ownerReferences. */
  trees: string;
}

/** Long enough for the slower of two watches to catch up on a busy 2-core machine. */
const holdBackMs = 3_000;
/**
 * After kube-apiserver comes back, every watch reconnects within about a second (the default
 * backoff grows to 30 s). One backoff serves all the observer's informers; its cap keeps that true.
 */
const reconnectBackoff = { initialMs: 100, maxMs: 500 };
const flushIntervalMs = 250;

export class ClusterObserver {
  readonly #factory: SharedInformerFactory;
  readonly #order: RevisionOrder;
  readonly #informers: SharedIndexInformer<KubeObject>[] = [];
  readonly #pods: SharedIndexInformer<KubeObject>;
  readonly #stop = new AbortController();
  #flushTimer: ReturnType<typeof setInterval> | undefined;

  private constructor(client: KubeClient, namespaces: ObservedNamespaces, deliver: (change: ObservedChange) => void) {
    this.#factory = new SharedInformerFactory({
      listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope),
      defaultResyncMs: 0,
      informerOptions: { reflector: { backoff: new ExponentialBackoff(reconnectBackoff) } },
    });
    this.#order = new RevisionOrder(holdBackMs, deliver);
    this.#pods = this.#watch("pods", resources.pods, namespaces.replicaSets);
    this.#watch("replicasets", resources.replicaSets, namespaces.replicaSets);
    this.#watch("configmaps", resources.configMaps, namespaces.trees);
    this.#watch("secrets", resources.secrets, namespaces.trees);
    // Networks everywhere: standalone ones and those in owner trees must all end up Ready.
    this.#watch("networks", networkGVR, "");
  }

  /** Starts watching and resolves once every cache holds its first list. */
  static async start(client: KubeClient, namespaces: ObservedNamespaces, deliver: (change: ObservedChange) => void): Promise<ClusterObserver> {
    const observer = new ClusterObserver(client, namespaces, deliver);
    observer.#factory.start(observer.#stop.signal);
    const sync = await observer.#factory.waitForCacheSync(observer.#stop.signal, 60_000);
    if (!sync.synced) {
      await observer.stop();
      throw new Error(`the soak's own watch did not sync: ${sync.unsynced.join(", ")}`);
    }
    observer.#flushTimer = setInterval(() => observer.#order.flush(performance.now()), flushIntervalMs);
    return observer;
  }

  /** Pods in the observer's cache that are not being deleted. */
  livePods(): KubeObject[] {
    return this.#pods.getIndexer().list().filter((pod) => !pod.metadata?.deletionTimestamp);
  }

  /** Objects in the observer's caches: the soak's objects, which the replicas cache too. */
  cachedObjects(): number {
    return this.#informers.reduce((sum, informer) => sum + informer.getIndexer().list().length, 0);
  }

  /** Relists the observer's own informers needed (410 Gone after a compaction, mostly). */
  get relists(): number {
    return this.#informers.reduce((sum, informer) => sum + informer.counters.relists, 0);
  }

  /** Changes that reached the checkers out of revision order (a watch lagged longer than the hold-back). */
  get lateChanges(): number {
    return this.#order.lateChanges;
  }

  /** Hands every held-back change to the checkers now. */
  flushAll(): void {
    this.#order.flush(performance.now(), true);
  }

  async stop(): Promise<void> {
    clearInterval(this.#flushTimer);
    this.#stop.abort();
    await this.#factory.shutdown();
    this.flushAll();
  }

  #watch(resource: ObservedResource, gvr: GroupVersionResource, namespace: string): SharedIndexInformer<KubeObject> {
    const { informer } = this.#factory.forResource(gvr, { namespace });
    this.#informers.push(informer);
    const push = (type: ObservedChange["type"], object: KubeObject, created: boolean, inferred: boolean) => {
      const revision = Number(object.metadata?.resourceVersion);
      this.#order.push({
        resource,
        type,
        object,
        // A tombstone's object is its last known state, older than the deletion: place it at the newest revision seen.
        revision: inferred || !Number.isSafeInteger(revision) ? this.#order.highestRevision : revision,
        receivedAt: performance.now(),
        created,
        inferred,
      });
    };
    informer.addEventHandler({
      onAdd: (object, isInInitialList) => push("upsert", object, !isInInitialList, false),
      onUpdate: (previous, object) => {
        if (!isResync(previous, object)) push("upsert", object, false, false);
      },
      onDelete: (deleted) => {
        if (deleted instanceof DeletedFinalStateUnknown) push("delete", deleted.obj, false, true);
        else push("delete", deleted, false, false);
      },
    });
    return informer;
  }
}
