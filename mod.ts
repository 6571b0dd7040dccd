/**
 * kube-loom as a library: everything a project needs to write its own controllers and compile
 * them, with or without the built-in ones, into its own single executable. Anything not exported
 * here is internal and may change.
 *
 * ```ts
 * import { builtinControllers, controller, resources, runCommand } from "kube-loom";
 * const mine = controller("mine").for(resources.configMaps).complete(() => async ({ object }) => { … });
 * process.exit(await runCommand(process.argv.slice(2), [...builtinControllers, mine], { name: "my-manager", version: "1.0.0" }));
 * ```
 *
 * @module kube-loom
 */

// The command: flags, leader election, health and metrics, exit codes.
export { runCommand } from "./pkg/manager/run-command.ts";
export type { Program } from "./pkg/options/program.ts";
export type { ClientPolicy, ControllerContext, ControllerDescriptor } from "./pkg/manager/controller-descriptor.ts";
export type { Runnable } from "./pkg/manager/runnable.ts";

// Writing a controller.
export { controller, ControllerBuilder } from "./pkg/builder/controller-builder.ts";
export type { ForOptions } from "./pkg/builder/primary-resource.ts";
export type { ReconcileFunc, ReconcileRequest, ReconcilerLike, SetupContext } from "./pkg/builder/build-controller.ts";
export type { MapContext, MapFunc } from "./pkg/builder/map-func.ts";
export type { Logger } from "./pkg/log/logger.ts";
// Retry delays for `.rateLimiter(() => …)` or ControllerOptions.rateLimiter: client-go's workqueue rate limiters.
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from "./pkg/workqueue/rate-limiters.ts";

// The controller core under the builder, for controllers the builder cannot express.
export { type CacheOptions, Controller, type ControllerOptions, type ControllerSharding, type EventSourceOptions } from "./pkg/controller/controller.ts";
export type { NamespaceOwnership, NamespaceVerdict } from "./pkg/shardelection/namespace-ownership.ts";
export { controllerOwnerKey, enqueueMapped, type KeyQueue, ownKey } from "./pkg/controller/handlers.ts";
export type { Reconciler } from "./pkg/controller/reconciler.ts";
export type { AddOptions, Priority } from "./pkg/workqueue/priority.ts";
export { generationChanged, labelsOrAnnotationsChanged, not, or, type Predicate, resourceVersionChanged } from "./pkg/controller/predicates.ts";
export { type ReconcileResult, type Requeue, type RequeueAfter, TerminalError } from "./pkg/controller/reconciler.ts";
export { ExpectedError } from "./pkg/errors/expected-error.ts";

// Talking to the API server.
export { createKubeClient, type KubeClient, withRateLimit } from "./pkg/kube/client.ts";
export { type ClientConfig, loadClientConfig } from "./pkg/kube/client-config.ts";
export type { TypedClients } from "./pkg/kube/typed-clients.ts";
export { ApiError, DecodeError, isAlreadyExists, isConflict, isForbidden, isInvalid, isNotFound, TransportError } from "./pkg/kube/errors.ts";
export type {
  DeleteOptions,
  DynamicClient,
  PartialObjectMetadata,
  PatchOptions,
  PatchType,
  ResourceClient,
  WriteOptions,
} from "./pkg/kube/dynamic-client.ts";
export type { ApiResource, DiscoveryClient } from "./pkg/kube/discovery.ts";
export type { ListOptions, WatchOptions } from "./pkg/kube/list-watch.ts";
export type { WatchStream } from "./pkg/kube/watch-stream.ts";
export {
  apiVersionOf,
  type BuiltinResources,
  type GroupVersionResource,
  groupOf,
  type ObjectOf,
  resources,
  resourceType,
  type ResourceType,
} from "./pkg/kube/gvr.ts";
export type { KubeObject, ListMeta, ObjectList, ObjectMeta, OwnerReference, Status, WatchEvent, WatchEventType, Wire } from "./pkg/kube/objects.ts";
export { controllerRefOf, isControlledBy } from "./pkg/kube/owner-references.ts";

// What most reconciles write with: a finalizer, server-side apply, owner references.
export { finalizer, type FinalizerHandlers } from "./pkg/controller/finalizer.ts";
export { hasFinalizer } from "./pkg/kube/finalizers.ts";
export { apply, type ApplyConfiguration, type ApplyOptions, applyStatus, type DeepPartial } from "./pkg/kube/server-side-apply.ts";
export {
  AlreadyOwnedError,
  controllerReference,
  type Ownable,
  ownerReference,
  setControllerReference,
  setOwnerReference,
  type WithOwnerReferences,
} from "./pkg/kube/controller-reference.ts";

// Informers and their caches.
export type { InformerScope, ReadOptions, ResourceInformer, SharedInformerFactory } from "./pkg/informer/factory.ts";
export type { InformerSharding, NamespaceShare } from "./pkg/informer/namespace-share.ts";
export type { HashRange } from "./pkg/sharding/hash-range.ts";
export type { ResourceEventHandler } from "./pkg/informer/event-handler.ts";
export { metaNamespaceKeyFunc, splitMetaNamespaceKey } from "./pkg/informer/keys.ts";
export type { Lister, NamespaceLister } from "./pkg/informer/lister.ts";
export type { IndexedStore, IndexFunc, Indexers, Store } from "./pkg/informer/store.ts";
export { type LabelSelector, parseSelector, type Selector, selectorFromLabelSelector } from "./pkg/labels/selector.ts";

// Events.
export type { EventRecorder } from "./pkg/events/recorder.ts";

// Flags of one's own controllers.
export { boolFlag, durationFlag, enumFlag, type FlagDefinition, floatFlag, intFlag, stringFlag, stringListFlag } from "./pkg/options/flag-definition.ts";
export { type FlagGroup, flagGroup, type FlagOptions, type GroupFlag, type NumericFlagOptions } from "./pkg/options/flag-group.ts";

// The controllers kube-loom ships.
export { builtinControllers } from "./controllers/registry.ts";
export { garbageCollectorDescriptor } from "./controllers/garbagecollector/descriptor.ts";
export { networkControllerDescriptor } from "./controllers/network/descriptor.ts";
export { replicaSetControllerDescriptor } from "./controllers/replicaset/descriptor.ts";
