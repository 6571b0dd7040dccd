// A controller in a few lines (controller-runtime's builder, kube-rs's Controller): name the
// resource it reconciles, what else it follows, how many workers, and the reconcile function.
// The builder only describes; `complete` hands the description to the controller core
// (pkg/controller), which asks the shared factory for exactly those informers, waits for exactly
// those caches before the first reconcile, and runs the workqueue and the workers.
//
//   export const mirror = controller("configmap-mirror")
//     .for(resources.namespaces)
//     .owns(resources.configMaps)
//     .complete((ctx) => async ({ name, object }) => { … });   // object: a Namespace
import type { GroupVersionResource, ResourceType } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { ClientPolicy, ControllerDescriptor } from "../manager/controller-descriptor.ts";
import type { FlagDefinition } from "../options/flag-definition.ts";
import type { RateLimiter } from "../workqueue/rate-limiters.ts";
import { checkedWorkers, type EventSourceOptions } from "../controller/controller.ts";
import { controllerOwnerKey, enqueueMapped } from "../controller/handlers.ts";
import { buildController, type ControllerSpec, type Setup, type WatchSpec } from "./build-controller.ts";
import type { ForOptions } from "./primary-resource.ts";
import type { MapContext, MapFunc } from "./map-func.ts";

/** What the builder knows before `for` fixes the object type; each step copies it, so a builder never changes. */
interface Described {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly serviceAccountName: string | undefined;
  readonly enabledByDefault: boolean;
  readonly client: ClientPolicy | undefined;
  readonly flags: readonly FlagDefinition[];
  readonly watches: readonly WatchSpec[];
  readonly workers: number | FlagDefinition<number>;
  readonly rateLimiter: (() => RateLimiter<string>) | undefined;
  readonly startKeys: readonly string[];
}

/** Starts a builder for the controller enabled by `--controllers=<name>`. */
export function controller(name: string): ControllerBuilder<KubeObject> {
  const described: Described = {
    name,
    aliases: [],
    serviceAccountName: undefined,
    enabledByDefault: true,
    client: undefined,
    flags: [],
    watches: [],
    workers: 1,
    rateLimiter: undefined,
    startKeys: [],
  };
  return new ControllerBuilder<KubeObject>(described, undefined);
}

/**
 * Describes a controller step by step; `complete` turns the description into a ControllerDescriptor for `runCommand`.
 * Start one with `controller(name)`; `T` is the primary resource's object type, set by `for`. A builder never
 * changes: each step returns a new one, so a shared start (`const base = controller("x").workers(4)`) can be
 * completed in several ways.
 *
 * @hideconstructor
 */
export class ControllerBuilder<T extends KubeObject, I extends string = never> {
  /** Use `controller(name)`. */
  constructor(
    private readonly described: Described,
    private readonly primary: ControllerSpec<T>["primary"],
  ) {}

  /** Other names `--controllers` accepts for it. */
  aliases(...names: string[]): ControllerBuilder<T, I> {
    return this.with({ aliases: names });
  }

  /** The ServiceAccount it acts as under --use-service-account-credentials. Default: "<name>-controller". */
  serviceAccount(name: string): ControllerBuilder<T, I> {
    return this.with({ serviceAccountName: name });
  }

  /** Off unless `--controllers` names it. */
  disabledByDefault(): ControllerBuilder<T, I> {
    return this.with({ enabledByDefault: false });
  }

  /** The controller's own flags, shown in --help and read with `context.values.get(flag)`. */
  flags(...flags: FlagDefinition[]): ControllerBuilder<T, I> {
    return this.with({ flags: [...this.described.flags, ...flags] });
  }

  /** How the manager makes this controller's client (see ClientPolicy). Default: it shares the process's rate limit. */
  clientPolicy(policy: ClientPolicy): ControllerBuilder<T, I> {
    return this.with({ client: policy });
  }

  /** The resource the controller reconciles: each of its events queues the object's key, and reconcile gets the object typed. */
  for<U extends KubeObject, J extends string = never>(resource: ResourceType<U>, options: ForOptions<NoInfer<U>, J> = {}): ControllerBuilder<U, J> {
    if (this.primary) throw new Error(`controller ${this.described.name}: for() given twice`);
    return new ControllerBuilder<U, J>(this.described, { resource, options });
  }

  /** Objects the primary ones control (controller ownerReference): their events queue their owner's key. */
  owns<U extends KubeObject>(resource: GroupVersionResource<U>, options: EventSourceOptions<NoInfer<U>> = {}): ControllerBuilder<T, I> {
    const primary = this.primary?.resource;
    if (!primary) throw new Error(`controller ${this.described.name}: owns() needs for() first, to know the owner's kind`);
    return this.watches(resource, controllerOwnerKey(primary), options);
  }

  /** Any other resource: `map` says which keys one of its objects concerns, and may look primaries up by the indexes `for` declared. */
  watches<U extends KubeObject>(resource: GroupVersionResource<U>, map: MapFunc<NoInfer<U>, T, I>, options: EventSourceOptions<NoInfer<U>> = {}): ControllerBuilder<T, I> {
    // The context is built for this controller's primary, so it has the primary's type and the indexes `for` named.
    const watch: WatchSpec = (core, context) => core.watch(resource, enqueueMapped(core.queue, (obj) => map(obj, context as MapContext<T, I>)), options);
    return this.with({ watches: [...this.described.watches, watch] });
  }

  /**
   * Workers reconciling different keys at once: a number from 1 to 10000, or an int flag that sets it (give the
   * flag those bounds). Throws Error for a number out of range.
   */
  workers(count: number | FlagDefinition<number>): ControllerBuilder<T, I> {
    return this.with({ workers: typeof count === "number" ? checkedWorkers(this.described.name, count) : count });
  }

  /** Retry delays for failed reconciles. Default: client-go's controller rate limiter. */
  rateLimiter(factory: () => RateLimiter<string>): ControllerBuilder<T, I> {
    return this.with({ rateLimiter: factory });
  }

  /** Keys to reconcile each time the controller starts leading, for controllers driven by time rather than by objects. */
  enqueueAtStart(...keys: string[]): ControllerBuilder<T, I> {
    return this.with({ startKeys: [...this.described.startKeys, ...keys] });
  }

  /** A copy of this builder with `change` applied. */
  private with(change: Partial<Described>): ControllerBuilder<T, I> {
    return new ControllerBuilder<T, I>({ ...this.described, ...change }, this.primary);
  }

  /** Finishes the controller: `setup` runs once per process, before the informers start, and returns the reconciler. */
  complete(setup: Setup<T>): ControllerDescriptor {
    const { described } = this;
    const spec: ControllerSpec<T> = { ...described, primary: this.primary, setup };
    const workerFlag = typeof described.workers === "number" ? [] : [described.workers];
    return {
      name: described.name,
      aliases: described.aliases,
      enabledByDefault: described.enabledByDefault,
      ...(described.serviceAccountName ? { serviceAccountName: described.serviceAccountName } : {}),
      ...(described.client ? { client: described.client } : {}),
      flags: [...described.flags, ...workerFlag],
      create: (context) => buildController(spec, context),
    };
  }
}
