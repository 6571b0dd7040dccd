// Server-side apply for one typed resource: the caller states the fields it wants, the API
// server merges them into the object (creating it if need be) and records the caller as their
// manager. apiVersion and kind come from the resource, so an apply configuration holds only
// what the controller means to own.
import type { KubeClient } from "./client.ts";
import { apiVersionOf, type ResourceType } from "./gvr.ts";
import type { KubeObject } from "./objects.ts";

/**
 * Every field optional, at every depth: what an apply configuration may leave out. A field may also be
 * `undefined` (left out too, as JSON drops it), so `{ type }` with `type: string | undefined` compiles under
 * exactOptionalPropertyTypes.
 */
export type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> | undefined } : T;

/** The fields of a `T` a controller applies: any subset, plus the name (and namespace, for a namespaced resource). */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<T> & {
  /** The object's name and namespace are required; any other metadata is optional. */
  metadata: {
    /** The object to apply to; created when it does not exist. */
    name: string;
    /** Required for a namespaced resource, absent for a cluster-scoped one. */
    namespace?: string | undefined;
  };
};

/** Options of `apply` and `applyStatus`. */
export interface ApplyOptions {
  /** Who owns the applied fields; the API server requires one. */
  fieldManager: string;
  /** Take over fields another manager owns instead of failing with 409 Conflict (controllers usually want this). */
  force?: boolean | undefined;
  /** Let the server validate and merge, but persist nothing. */
  dryRun?: boolean | undefined;
}

/**
 * Applies `configuration` to the object it names (server-side apply): the server creates the object or
 * merges these fields into it, and records `fieldManager` as their owner; fields this manager applied
 * before and leaves out now are removed. Returns the object as the server stored it. In a reconcile, pass
 * the controller's client (`SetupContext.client`), so the write is refused unless the process leads.
 *
 * @throws Error, before any request, when `fieldManager` is empty, the namespace does not fit the resource's
 * scope, or the configuration's apiVersion or kind are not the resource's. ApiError from the server: 409 when
 * another manager owns a field and `force` is not set, 422 when the result is invalid.
 */
export function apply<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceType<T>,
  configuration: ApplyConfiguration<T>,
  options: ApplyOptions,
): Promise<T> {
  return applyTo(client, resource, configuration, options, undefined);
}

/** Applies `configuration`'s status through the status subresource (the rest of it is ignored by the server). */
export function applyStatus<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceType<T>,
  configuration: ApplyConfiguration<T>,
  options: ApplyOptions,
): Promise<T> {
  return applyTo(client, resource, configuration, options, "status");
}

async function applyTo<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceType<T>,
  configuration: ApplyConfiguration<T>,
  options: ApplyOptions,
  subresource: string | undefined,
): Promise<T> {
  const { name, namespace } = configuration.metadata;
  const what = `apply ${resource.kind} ${namespace ? `${namespace}/` : ""}${name}`;
  if (!options.fieldManager) throw new Error(`${what}: fieldManager is empty; expected the name the applied fields are recorded under`);
  if (resource.namespaced && !namespace) throw new Error(`${what}: metadata.namespace is empty; expected the namespace of this namespaced resource`);
  if (!resource.namespaced && namespace) throw new Error(`${what}: metadata.namespace is "${namespace}"; expected none, ${resource.kind} is cluster-scoped`);
  const apiVersion = apiVersionOf(resource);
  const given = configuration as DeepPartial<KubeObject>;
  if ((given.apiVersion ?? apiVersion) !== apiVersion || (given.kind ?? resource.kind) !== resource.kind) {
    throw new Error(`${what}: the configuration says ${given.apiVersion ?? apiVersion} ${given.kind ?? resource.kind}; expected ${apiVersion} ${resource.kind}`);
  }
  return client.dynamic.resource<T>(resource, namespace).patch(name, { ...configuration, apiVersion, kind: resource.kind }, "apply", {
    fieldManager: options.fieldManager,
    ...(options.force !== undefined && { force: options.force }),
    ...(options.dryRun !== undefined && { dryRun: options.dryRun }),
    ...(subresource && { subresource }),
  });
}
