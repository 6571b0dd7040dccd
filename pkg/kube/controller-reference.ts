// Writing ownerReferences the way controllers need them: a reference built from the owner's
// resource type (no apiVersion or kind typed by hand), set on an object at most once per owner,
// with the rules the API server and the garbage collector hold them to checked before any write:
// one controller per object, and no namespaced owner outside the object's own namespace.
import { ExpectedError } from "../errors/expected-error.ts";
import { apiVersionOf, groupOf, type ResourceType } from "./gvr.ts";
import type { KubeObject, OwnerReference } from "./objects.ts";

/** Any object that can carry owner references: a cached object, or an apply configuration being built. */
export interface Ownable {
  /** Used in error messages. */
  kind?: string;
  /** Where the references go. */
  metadata?: {
    /** Used in error messages. */
    name?: string;
    /** Checked against a namespaced owner's namespace. */
    namespace?: string;
    /** The references already there; the one set replaces any to the same owner. */
    ownerReferences?: Partial<OwnerReference>[];
  };
}

/** An object after a reference was set on it: it has metadata and owner references. */
export type WithOwnerReferences<O extends Ownable> = O & {
  /** The object's metadata, now with owner references. */
  metadata: {
    /** Every reference, the one just set last. */
    ownerReferences: OwnerReference[];
  };
};

/** The object already has a controller other than the one being set; two controllers would fight over it. */
export class AlreadyOwnedError extends ExpectedError {
  /** "AlreadyOwnedError". */
  override readonly name = "AlreadyOwnedError";
  /** Thrown by setControllerReference; the message names the object and its controller. */
  constructor(
    /** The object, as "Kind namespace/name". */
    readonly object: string,
    /** Its existing controller reference. */
    readonly existing: Partial<OwnerReference>,
  ) {
    super(`${object} is already controlled by ${existing.kind} ${existing.name} (uid ${existing.uid}); it cannot have a second controller`);
  }
}

/**
 * A reference to `owner`; `controller` and `blockOwnerDeletion` are left out unless asked for.
 * Throws when `owner` has no name or uid (it must be the object as read from the API server).
 */
export function ownerReference<T extends KubeObject>(
  owner: NoInfer<T>,
  ownerType: ResourceType<T>,
  options: { controller?: boolean; blockOwnerDeletion?: boolean } = {},
): OwnerReference {
  const { name, uid } = owner.metadata ?? {};
  if (!name || !uid) {
    throw new Error(`owner ${ownerType.kind} "${name ?? ""}" has no metadata.${name ? "uid" : "name"}; expected the owner as read from the API server`);
  }
  return { apiVersion: apiVersionOf(ownerType), kind: ownerType.kind, name, uid, ...options };
}

/** The reference that makes `owner` the controller of an object: `controller` and `blockOwnerDeletion` set. Throws as `ownerReference` does. */
export function controllerReference<T extends KubeObject>(owner: NoInfer<T>, ownerType: ResourceType<T>): OwnerReference {
  return ownerReference(owner, ownerType, { controller: true, blockOwnerDeletion: true });
}

/**
 * Makes `owner` the controller of `object` (which is changed in place and returned). A reference
 * to the same owner is replaced; a different controller throws AlreadyOwnedError. Throws when the
 * owner is namespaced and `object` (by its metadata.namespace) is cluster-scoped or in another namespace.
 */
export function setControllerReference<O extends Ownable, T extends KubeObject>(object: O, owner: NoInfer<T>, ownerType: ResourceType<T>): WithOwnerReferences<O> {
  const reference = controllerReference(owner, ownerType);
  checkScope(object, owner, ownerType);
  const existing = object.metadata?.ownerReferences?.find((ref) => ref.controller === true && !sameOwner(ref, reference));
  if (existing) throw new AlreadyOwnedError(describe(object), existing);
  return upsert(object, reference);
}

/**
 * Adds a reference to `owner` that does not make it the controller (changed in place and
 * returned); a reference to the same owner is replaced. The same scope rules as setControllerReference.
 */
export function setOwnerReference<O extends Ownable, T extends KubeObject>(object: O, owner: NoInfer<T>, ownerType: ResourceType<T>): WithOwnerReferences<O> {
  const reference = ownerReference(owner, ownerType);
  checkScope(object, owner, ownerType);
  return upsert(object, reference);
}

/** The same owner whatever the version: group, kind and name, as the garbage collector resolves references. */
function sameOwner(a: Partial<OwnerReference>, b: OwnerReference): boolean {
  return groupOf(a.apiVersion ?? "") === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function upsert<O extends Ownable>(object: O, reference: OwnerReference): WithOwnerReferences<O> {
  const metadata: NonNullable<Ownable["metadata"]> = object.metadata ?? {};
  // Partial references are only those the caller put there itself; the helpers write whole ones.
  const ownerReferences = [...(metadata.ownerReferences ?? []).filter((ref) => !sameOwner(ref, reference)), reference] as OwnerReference[];
  return Object.assign(object, { metadata: Object.assign(metadata, { ownerReferences }) });
}

/** An ownerReference names no namespace: the owner is looked up in the object's own namespace, or cluster-wide. */
function checkScope<T extends KubeObject>(object: Ownable, owner: T, ownerType: ResourceType<T>): void {
  if (!ownerType.namespaced) return;
  const ownerNamespace = owner.metadata?.namespace;
  const ownerName = `${ownerType.kind} ${ownerNamespace ?? ""}/${owner.metadata?.name ?? ""}`;
  const objectNamespace = object.metadata?.namespace;
  if (!ownerNamespace) throw new Error(`owner ${ownerName} has no metadata.namespace; expected one, ${ownerType.kind} is namespaced`);
  if (!objectNamespace) throw new Error(`${describe(object)} is cluster-scoped (no metadata.namespace); expected a cluster-scoped owner, not ${ownerName}`);
  if (objectNamespace !== ownerNamespace) {
    throw new Error(`${describe(object)} is in namespace "${objectNamespace}"; expected an owner in the same namespace, not ${ownerName}`);
  }
}

function describe(object: Ownable): string {
  const { namespace, name } = object.metadata ?? {};
  return `${object.kind ?? "object"} ${namespace ? `${namespace}/` : ""}${name ?? ""}`;
}
