// The test's own watch on one control plane: metadata-only informers over the resources a suite
// touches, in every namespace, noting when anything last changed. Part of deciding quiescence:
// a controller's reaction to a change shows up here as another change.
import { isResync } from "../../pkg/informer/event-handler.ts";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { GroupVersionResource } from "../../pkg/kube/gvr.ts";

const syncTimeoutMs = 60_000;

export class ActivityObserver {
  #lastChangeAt = performance.now();
  readonly #stop = new AbortController();

  private constructor(private readonly factory: SharedInformerFactory) {}

  static async start(client: KubeClient, watched: readonly GroupVersionResource[]): Promise<ActivityObserver> {
    const factory = new SharedInformerFactory({ listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope), defaultResyncMs: 0 });
    const observer = new ActivityObserver(factory);
    const changed = () => {
      observer.#lastChangeAt = performance.now();
    };
    for (const gvr of watched) {
      factory.forMetadata(gvr, { namespace: "" }).informer.addEventHandler({
        onAdd: (_, isInInitialList) => {
          if (!isInInitialList) changed();
        },
        onUpdate: (oldObj, newObj) => {
          if (!isResync(oldObj, newObj)) changed();
        },
        onDelete: changed,
      });
    }
    factory.start(observer.#stop.signal);
    const sync = await factory.waitForCacheSync(observer.#stop.signal, syncTimeoutMs);
    if (!sync.synced) {
      await observer.stop();
      throw new Error(`the differential test's own watch did not sync: ${sync.unsynced.join(", ")}`);
    }
    return observer;
  }

  /** performance.now() of the last change seen (or of the start). */
  get lastChangeAt(): number {
    return this.#lastChangeAt;
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.factory.shutdown();
  }
}
