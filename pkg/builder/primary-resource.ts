// The resource a built controller reconciles: every event queues the object's own key, and the
// reconcile reads the object from this cache. For a custom resource the builder can wait for
// the CustomResourceDefinition first (see CrdGate): until it is established nothing is listed.
// Once it is, the primary is followed wherever the CRD informer runs, on a warm standby too, so
// a new leader finds its cache filled.
import type { Controller } from "../controller/controller.ts";
import { enqueueMapped, ownKey } from "../controller/handlers.ts";
import type { ResourceInformer } from "../informer/factory.ts";
import type { ResourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ControllerContext } from "../manager/controller-descriptor.ts";
import type { Predicate } from "../controller/predicates.ts";
import type { IndexFunc } from "../informer/store.ts";
import type { InformerScope } from "../informer/factory.ts";
import type { FlagDefinition } from "../options/flag-definition.ts";
import { CrdGate } from "./crd-gate.ts";

/** Never aborts: the primary's informer runs until the factory shuts down, as the others do. */
const untilShutdown = new AbortController().signal;

/** Options of `for`: which objects of the primary resource, and which of their events, queue keys; `I` names its indexes. */
export interface ForOptions<T extends KubeObject, I extends string = string> {
  /** Which part of the collection (namespace, selectors); default: everything. */
  scope?: InformerScope | undefined;
  /** Events some predicate rejects queue nothing, e.g. `[generationChanged]` to ignore status-only updates. */
  predicates?: readonly Predicate<T>[] | undefined;
  /** A custom resource: stay idle until its CustomResourceDefinition is established, then start without a restart. */
  waitForCrd?: boolean | undefined;
  /** Replay every cached object this often (ms), or as often as an int/duration flag says; 0: never. Default: the factory's resync. */
  resyncPeriodMs?: number | FlagDefinition<number> | undefined;
  /** @deprecated The old name of `resyncPeriodMs` (which `owns` and `watches` use too). */
  resyncPeriod?: number | FlagDefinition<number> | undefined;
  /**
   * Indexes of the primary cache by name: each function returns the values an object is filed under,
   * e.g. the "namespace/name" of each ConfigMap a Deployment mounts. A `watches` map function looks
   * primaries up by them with `primariesByIndex(name, value)`.
   */
  indexers?: Record<I, IndexFunc<T>> | undefined;
}

export interface Primary<T extends KubeObject> {
  resource: ResourceType<T>;
  options: ForOptions<T>;
}

export class PrimaryResource<T extends KubeObject> {
  private cache: ResourceInformer<T> | undefined;
  private readonly gate: CrdGate | undefined;

  constructor(
    private readonly core: Controller,
    private readonly primary: Primary<T>,
    private readonly context: Pick<ControllerContext, "informers" | "values" | "logger">,
  ) {
    if (!primary.options.waitForCrd) {
      this.connect();
      return;
    }
    this.gate = new CrdGate(context.informers, primary.resource);
    core.waitFor(this.gate.informer);
    void this.gate.wait(untilShutdown).then(() => this.connectOnce());
  }

  cached(key: string): T | undefined {
    return this.cache?.informer.getIndexer().getByKey(key);
  }

  list(): T[] {
    return this.cache?.lister.list() ?? [];
  }

  byIndex(index: string, value: string): T[] {
    return this.cache?.informer.getIndexer().byIndex(index, value) ?? [];
  }

  /** Resolves true once the primary is watched: at once, or when its CRD is established; false if `stop` aborts first. */
  async connected(stop: AbortSignal): Promise<boolean> {
    const { gate } = this;
    if (!gate || this.cache) return true;
    const { logger } = this.context;
    // Info, not a warning: installing a controller before its CRD is a normal order of deployment
    // (kube-controller-manager, too, tells of a wait for caches at info).
    if (!gate.isEstablished) {
      logger.info({ crd: gate.crdName }, `the ${gate.crdName} CustomResourceDefinition is not installed (or not established); the controller stays idle until it is`);
    }
    if (!(await gate.wait(stop))) return false;
    this.connectOnce();
    return true;
  }

  /** Watches the primary, once, and starts its informer with the others the factory runs. */
  private connectOnce(): void {
    const { gate, context } = this;
    if (this.cache) return;
    context.logger.info({ crd: gate?.crdName }, "CustomResourceDefinition established; starting");
    this.connect();
    context.informers.start(untilShutdown);
  }

  private connect(): void {
    const { resource, options } = this.primary;
    const resyncPeriod = options.resyncPeriodMs ?? options.resyncPeriod;
    const resyncPeriodMs = resyncPeriod === undefined || typeof resyncPeriod === "number" ? resyncPeriod : this.context.values.get(resyncPeriod);
    this.cache = this.core.watch(resource, enqueueMapped<T>(this.core.queue, ownKey), {
      ...(options.scope && { scope: options.scope }),
      ...(options.predicates && { predicates: options.predicates }),
      ...(options.indexers && { indexers: options.indexers }),
      ...(resyncPeriodMs !== undefined && { resyncPeriodMs }),
    });
  }
}
