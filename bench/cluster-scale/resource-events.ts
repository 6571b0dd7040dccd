// The benchmark's own view of the cluster, independent of both controller managers: a watch on a
// resource in every namespace from a known resourceVersion, resumed where it stopped when the API
// server ends it (a 410 fails it: its counts would be incomplete). On top: counting what changed
// in a window, and waiting for the first Pod of a ReplicaSet or of each of some namespaces.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources, type ResourceType } from "../../pkg/kube/gvr.ts";
import type { KubeObject, WatchEventType } from "../../pkg/kube/objects.ts";

type ChangeType = Exclude<WatchEventType, "BOOKMARK" | "ERROR">;

export interface FollowOptions {
  namespace?: string;
  labelSelector?: string;
  /** Start here instead of at the current resourceVersion. */
  resourceVersion?: string;
}

export class ResourceEvents<T extends KubeObject> {
  readonly #stop = new AbortController();
  readonly #opened = Promise.withResolvers<void>();
  readonly #done: Promise<void>;
  #failure: unknown;

  private constructor(
    private readonly client: KubeClient,
    private readonly resource: ResourceType<T>,
    private readonly options: FollowOptions,
    private resourceVersion: string,
    private readonly onChange: (type: ChangeType, object: T) => void,
  ) {
    this.#done = this.#follow().catch((err: unknown) => {
      if (!this.#stop.signal.aborted) this.#failure = err;
    });
  }

  /** Follows every change after now (or after `options.resourceVersion`); resolves once the watch is open. */
  static async follow<T extends KubeObject>(
    client: KubeClient,
    resource: ResourceType<T>,
    options: FollowOptions,
    onChange: (type: ChangeType, object: T) => void,
  ): Promise<ResourceEvents<T>> {
    const resourceVersion = options.resourceVersion ?? (await currentResourceVersion(client, resource, options));
    const events = new ResourceEvents(client, resource, options, resourceVersion, onChange);
    await events.#opened.promise;
    return events;
  }

  /** Stops following; throws if some change could not be seen. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#done;
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #follow(): Promise<void> {
    const objects = this.client.dynamic.resource<T>(this.resource, this.options.namespace);
    const selector = this.options.labelSelector ? { labelSelector: this.options.labelSelector } : {};
    try {
      while (!this.#stop.signal.aborted) {
        const events = await objects.watch({ ...selector, resourceVersion: this.resourceVersion, allowWatchBookmarks: true }, this.#stop.signal);
        this.#opened.resolve();
        for await (const event of events) {
          if (event.type === "ERROR") throw new Error(`watch of ${this.resource.resource} failed: ${event.object.message ?? event.object.reason}`);
          this.resourceVersion = event.object.metadata?.resourceVersion ?? this.resourceVersion;
          if (event.type !== "BOOKMARK") this.onChange(event.type, event.object);
        }
      }
    } catch (err) {
      this.#opened.reject(err);
      throw err;
    }
  }
}

async function currentResourceVersion(client: KubeClient, resource: ResourceType, options: FollowOptions): Promise<string> {
  const selector = options.labelSelector ? { labelSelector: options.labelSelector } : {};
  const page = await client.dynamic.resource(resource, options.namespace).list({ ...selector, limit: 1 });
  return page.metadata?.resourceVersion ?? "";
}

/** Creations, deletions and updates seen in a window, for objects `counted` selects. */
export class ChangeCounter<T extends KubeObject> {
  created = 0;
  deleted = 0;
  modified = 0;
  #events: ResourceEvents<T> | undefined;

  static async start<T extends KubeObject>(client: KubeClient, resource: ResourceType<T>, counted: (object: T) => boolean): Promise<ChangeCounter<T>> {
    const counter = new ChangeCounter<T>();
    counter.#events = await ResourceEvents.follow(client, resource, {}, (type, object) => {
      if (!counted(object)) return;
      if (type === "ADDED") counter.created++;
      else if (type === "DELETED") counter.deleted++;
      else counter.modified++;
    });
    return counter;
  }

  async close(): Promise<{ created: number; deleted: number; modified: number }> {
    await this.#events?.close();
    return { created: this.created, deleted: this.deleted, modified: this.modified };
  }
}

/** Resolves with performance.now() when the first Pod matching `labelSelector` in `namespace` is created from now on. */
export async function firstPodCreated(client: KubeClient, namespace: string, labelSelector: string, timeoutMs: number): Promise<{ at: Promise<number>; close(): Promise<void> }> {
  const first = Promise.withResolvers<number>();
  const events = await ResourceEvents.follow(client, resources.pods, { namespace, labelSelector }, (type) => {
    if (type === "ADDED") first.resolve(performance.now());
  });
  const timer = setTimeout(() => first.reject(new Error(`no Pod ${labelSelector} in ${namespace} within ${timeoutMs} ms`)), timeoutMs);
  const at = first.promise.finally(() => clearTimeout(timer));
  at.catch(() => undefined);
  const close = () => {
    clearTimeout(timer);
    return events.close();
  };
  return { at, close };
}

/** performance.now() of the first Pod created from now on in each of `namespaces`; `all` resolves once every one has had one. */
export async function firstPodPerNamespace(client: KubeClient, namespaces: readonly string[], timeoutMs: number): Promise<{ all: Promise<Map<string, number>>; close(): Promise<void> }> {
  const first = new Map<string, number>();
  const done = Promise.withResolvers<Map<string, number>>();
  const waiting = new Set(namespaces);
  if (waiting.size === 0) done.resolve(first);
  const events = await ResourceEvents.follow(client, resources.pods, {}, (type, pod) => {
    const namespace = pod.metadata?.namespace ?? "";
    if (type !== "ADDED" || !waiting.delete(namespace)) return;
    first.set(namespace, performance.now());
    if (waiting.size === 0) done.resolve(first);
  });
  const timer = setTimeout(() => done.reject(new Error(`no new Pod within ${timeoutMs} ms in ${[...waiting].join(", ")}`)), timeoutMs);
  const all = done.promise.finally(() => clearTimeout(timer));
  all.catch(() => undefined);
  const close = () => {
    clearTimeout(timer);
    return events.close();
  };
  return { all, close };
}
