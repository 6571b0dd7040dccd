// Unstructured access to any group/version/resource — CRDs, and every type the garbage
// collector meets. Objects are plain JSON objects, whether they came as JSON or protobuf. A
// ResourceClient is also a ListerWatcher.
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { FieldTree } from "./field-tree.ts";
import { type GroupVersionResource, apiVersionOf } from "./gvr.ts";
import type { HeldVersion, ListOptions, ListerWatcher, WatchOptions } from "./list-watch.ts";
import type { KubeObject, ObjectList, Status } from "./objects.ts";
import { UnknownKindError } from "./protobuf/envelope.ts";
import { isBuiltInGroupVersion } from "./protobuf/kubernetes-decoder.ts";
import { jsonMediaType, metadataAccept, protobufMediaType, protobufOrJson } from "./protobuf/media-types.ts";
import type { DecodeOptions } from "./protobuf/message-decoder.ts";
import type { QueryValue, RestClient } from "./rest-client.ts";
import type { WatchStream } from "./watch-stream.ts";

/**
 * The patch formats the API server takes: JSON merge patch (RFC 7386), JSON patch (RFC 6902),
 * strategic merge patch (built-in types only), and server-side apply.
 */
export type PatchType = "merge" | "json" | "strategic" | "apply";

const patchContentTypes: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/** Options of create, update and patch. */
export interface WriteOptions {
  /** The name the server records as owner of the fields written (managedFields); default: the user agent's program name. */
  fieldManager?: string | undefined;
  /** Validate and admit the write, but persist nothing. */
  dryRun?: boolean | undefined;
}

/** Options of a patch. For an "apply" patch, `fieldManager` is required. */
export interface PatchOptions extends WriteOptions {
  /** Patch a subresource instead of the object, e.g. "status" or "scale". */
  subresource?: string | undefined;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean | undefined;
}

/** Options of a delete. */
export interface DeleteOptions {
  /** What happens to the object's dependents: deleted before it, after it, or left with the owner reference removed. The resource's default otherwise (Background for most). */
  propagationPolicy?: "Foreground" | "Background" | "Orphan" | undefined;
  /** The delete fails with 409 unless the object still has this UID / resourceVersion. */
  preconditions?:
    | {
        /** The object must still be this one (not a new object of the same name). */
        uid?: string | undefined;
        /** The object must not have changed since this version. */
        resourceVersion?: string | undefined;
      }
    | undefined;
  /** How long a Pod gets to stop; 0 deletes at once. */
  gracePeriodSeconds?: number | undefined;
  /** Check the delete, remove nothing. */
  dryRun?: boolean | undefined;
}

/** What PartialObjectMetadata requests return: apiVersion, kind and metadata only. */
export type PartialObjectMetadata = KubeObject;

/**
 * Access to any resource, built-in or custom, with objects as plain JSON (timestamps stay strings).
 * Reached as `client.dynamic`; the type of the objects comes from the resource, e.g. `resources.pods`.
 *
 * @hideconstructor
 */
export class DynamicClient {
  constructor(private readonly rest: RestClient) {}

  /** A client for one resource, in one namespace or (namespace undefined) across all / cluster-scoped. */
  resource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource<T>, namespace?: string | undefined): ResourceClient<T> {
    return new ResourceClient<T>(this.rest, gvr, namespace, false);
  }

  /** Like `resource`, but every read returns PartialObjectMetadata. */
  metadata(gvr: GroupVersionResource, namespace?: string | undefined): ResourceClient<PartialObjectMetadata> {
    return new ResourceClient<PartialObjectMetadata>(this.rest, gvr, namespace, true);
  }

  /** What an informer lists and watches: one resource, optionally narrowed by namespace and selectors. */
  listerWatcher(gvr: GroupVersionResource, scope: ListerWatcherScope): ListerWatcher {
    const client = new ResourceClient<KubeObject>(this.rest, gvr, scope.namespace, scope.metadataOnly, scope.keptFields, scope.heldVersions);
    const selectors = {
      ...(scope.labelSelector ? { labelSelector: scope.labelSelector } : {}),
      ...(scope.fieldSelector ? { fieldSelector: scope.fieldSelector } : {}),
    };
    return {
      list: (options, signal) => client.list({ ...options, ...selectors }, signal),
      watch: (options, signal) => client.watch({ ...options, ...selectors }, signal),
    };
  }
}

/** Which part of a resource `listerWatcher` lists and watches. */
export interface ListerWatcherScope {
  /** One namespace; absent: all namespaces. */
  namespace?: string;
  /** Only objects with matching labels. */
  labelSelector?: string;
  /** Only objects with matching fields. */
  fieldSelector?: string;
  /** Objects carry apiVersion, kind and metadata only. */
  metadataOnly: boolean;
  /**
   * What the informer keeps of each object, asked at each list and watch (it is fixed when the
   * informer starts; undefined: whole objects): a protobuf answer is decoded into just that, and
   * without metadata.managedFields, which informers drop. JSON is parsed whole, and the informer
   * projects it.
   */
  keptFields?: () => FieldTree | undefined;
  /**
   * The objects the informer holds, asked at each list and streaming list (undefined: none yet).
   * A protobuf item it holds in the same resourceVersion is not decoded: the list gets the held
   * object itself. JSON is parsed whole, and the informer keeps its own copy of each such object.
   */
  heldVersions?: () => HeldVersion | undefined;
}

/**
 * One resource in one namespace (or all namespaces, or cluster-scoped): `client.dynamic.resource(resources.pods, "default")`.
 * Every call throws ApiError for an HTTP error status (see isNotFound, isConflict, …) and TransportError when no answer came.
 *
 * @hideconstructor
 */
export class ResourceClient<T extends KubeObject> implements ListerWatcher<T> {
  /** Set once a protobuf answer of this resource could not be decoded: it is read as JSON from then on. */
  private protobufRefused = false;

  constructor(
    private readonly rest: RestClient,
    /** The resource. */
    readonly gvr: GroupVersionResource,
    /** The namespace, or undefined for all namespaces or a cluster-scoped resource. */
    readonly namespace: string | undefined,
    private readonly metadataOnly: boolean,
    /** What lists and watches decode of a protobuf answer (an informer's projection); absent: everything. */
    private readonly keptFields?: () => FieldTree | undefined,
    /** What lists and streaming lists need not decode (see ListerWatcherScope.heldVersions). */
    private readonly heldVersions?: () => HeldVersion | undefined,
  ) {}

  /** One page; items carry apiVersion and kind (the server leaves them out of list items, watch events have them). */
  async list(options: ListOptions = {}, signal?: AbortSignal): Promise<ObjectList<T>> {
    const list = await this.fallBackOnce(() =>
      this.rest.list<T>({
        path: this.collectionPath(),
        query: toQuery(options),
        accept: this.accept(true),
        decode: this.decodeOptions(true),
        onUndecodable: this.refuseUnknownKinds,
        ...(signal ? { signal } : {}),
      }),
    );
    // An empty PartialObjectMetadataList comes with "items": null.
    list.items ??= [];
    const kind = list.kind?.replace(/List$/, "");
    // 100,000 items take tens of milliseconds: in slices, like their decoding.
    const slicer = new TimeSlicer({ callsPerCheck: 32 });
    for (const item of list.items) {
      item.apiVersion ??= list.apiVersion;
      item.kind ??= kind;
      if (slicer.due()) await slicer.yield();
    }
    return list;
  }

  /**
   * Opens a watch. Resolves once the server accepted it; the iterable yields events until the server
   * ends the stream (after `timeoutSeconds`), the connection breaks (the iteration throws), or `signal` aborts it
   * (the iteration ends). To follow a collection for good, use an informer instead.
   */
  watch(options: WatchOptions, signal: AbortSignal): Promise<WatchStream<T>> {
    return this.rest.watch<T>(
      { path: this.collectionPath(), query: toQuery(options), accept: this.accept(false), decode: this.decodeOptions(options.sendInitialEvents === true), onUndecodable: this.refuseUnknownKinds },
      signal,
    );
  }

  /** Reads one object from the server (not from a cache). Throws ApiError 404 when it does not exist. */
  get(name: string, signal?: AbortSignal): Promise<T> {
    return this.fallBackOnce(() =>
      this.rest.request<T>({
        method: "GET",
        path: this.itemPath(name),
        accept: this.accept(false),
        onUndecodable: this.refuseUnknownKinds,
        ...(signal ? { signal } : {}),
      }),
    );
  }

  /** Creates the object (apiVersion, and kind when the resource is a ResourceType, added when missing); throws ApiError 409 AlreadyExists when its name is taken. */
  create(object: T, options: WriteOptions = {}): Promise<T> {
    return this.rest.request<T>({ method: "POST", path: this.collectionPath(), query: writeQuery(options), body: this.withTypeMeta(object) });
  }

  /**
   * Replaces the object (not its status). With `metadata.resourceVersion` set, the server refuses (ApiError 409)
   * when the object changed since: read it again and retry.
   */
  update(object: T, options: WriteOptions = {}): Promise<T> {
    return this.rest.request<T>({ method: "PUT", path: this.itemPath(nameOf(object)), query: writeQuery(options), body: this.withTypeMeta(object) });
  }

  /** Replaces the object's status subresource; the rest of `object` is ignored. Conflicts as `update` does. */
  updateStatus(object: T, options: WriteOptions = {}): Promise<T> {
    return this.rest.request<T>({
      method: "PUT",
      path: `${this.itemPath(nameOf(object))}/status`,
      query: writeQuery(options),
      body: this.withTypeMeta(object),
    });
  }

  /**
   * Patches the object (or `options.subresource`). For server-side apply, `patch` is the whole intent and
   * `fieldManager` is required: `patch(name, intent, "apply", { fieldManager: "my-controller", force: true })`;
   * `apply()` does that for you.
   */
  patch(name: string, patch: unknown, type: PatchType, options: PatchOptions = {}): Promise<T> {
    const path = options.subresource ? `${this.itemPath(name)}/${options.subresource}` : this.itemPath(name);
    return this.rest.request<T>({
      method: "PATCH",
      path,
      query: { ...writeQuery(options), force: options.force },
      body: patch,
      contentType: patchContentTypes[type],
    });
  }

  /** Returns the deleted object, or its state with a deletionTimestamp when finalizers hold it. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    const hasBody = options.propagationPolicy || options.preconditions || options.gracePeriodSeconds !== undefined;
    return this.rest.request<T | Status>({
      method: "DELETE",
      path: this.itemPath(name),
      query: { dryRun: options.dryRun ? "All" : undefined },
      ...(hasBody
        ? {
            body: {
              kind: "DeleteOptions",
              apiVersion: "v1",
              propagationPolicy: options.propagationPolicy,
              preconditions: options.preconditions,
              gracePeriodSeconds: options.gracePeriodSeconds,
            },
          }
        : {}),
    });
  }

  /** The collection's URL path, e.g. /api/v1/namespaces/default/pods. */
  collectionPath(): string {
    const prefix = this.gvr.group ? `/apis/${this.gvr.group}/${this.gvr.version}` : `/api/${this.gvr.version}`;
    const scope = this.namespace ? `/namespaces/${encodeURIComponent(this.namespace)}` : "";
    return `${prefix}${scope}/${this.gvr.resource}`;
  }

  /** One object's URL path, e.g. /api/v1/namespaces/default/pods/web-0. */
  itemPath(name: string): string {
    return `${this.collectionPath()}/${encodeURIComponent(name)}`;
  }

  /**
   * An informer's lists and watches (keptFields given) leave out managedFields, which it drops
   * anyway, and what it does not keep; a `listing` request skips the objects it holds already.
   */
  private decodeOptions(listing: boolean): DecodeOptions {
    if (!this.keptFields) return {};
    const fields = this.keptFields();
    const held = listing ? this.heldVersions?.() : undefined;
    return { withoutManagedFields: true, ...(fields && { fields }), ...(held && { held }) };
  }

  /**
   * Protobuf for built-in resources, and for the metadata of any resource (the API server
   * encodes PartialObjectMetadata as protobuf for custom resources too); JSON otherwise.
   */
  private accept(list: boolean): string {
    const protobuf = this.rest.contentType === protobufMediaType && !this.protobufRefused;
    if (this.metadataOnly) return metadataAccept(protobuf ? protobufMediaType : jsonMediaType, list);
    return protobuf && isBuiltInGroupVersion(apiVersionOf(this.gvr)) ? protobufOrJson : jsonMediaType;
  }

  /** A protobuf answer of a kind the schema lacks (a newer server's): this resource is read as JSON from then on. */
  private readonly refuseUnknownKinds = (error: Error): void => {
    for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof UnknownKindError) this.protobufRefused = true;
  };

  /** A read refused for an unknown protobuf kind is asked again at once, as JSON; a watch is opened again by its reflector. */
  private async fallBackOnce<R>(read: () => Promise<R>): Promise<R> {
    const refusedBefore = this.protobufRefused;
    try {
      return await read();
    } catch (err) {
      if (refusedBefore || !this.protobufRefused) throw err;
      return read();
    }
  }

  /** The API server infers a built-in object's kind from the path, never a custom resource's: both are filled in where missing. */
  private withTypeMeta(object: T): T {
    const kind = "kind" in this.gvr && typeof this.gvr.kind === "string" ? { kind: this.gvr.kind } : {};
    return { apiVersion: apiVersionOf(this.gvr), ...kind, ...object };
  }
}

function nameOf(object: KubeObject): string {
  const name = object.metadata?.name;
  if (!name) throw new Error("object has no metadata.name");
  return name;
}

function toQuery(options: ListOptions | WatchOptions): Record<string, QueryValue> {
  return { ...options };
}

function writeQuery(options: WriteOptions): Record<string, QueryValue> {
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? "All" : undefined };
}
