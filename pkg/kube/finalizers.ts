// metadata.finalizers: reading it, and adding or removing one finalizer. A write replaces the
// whole list and carries the resourceVersion it was computed from, so that a concurrent change
// makes it fail with 409 Conflict (and the caller retry from a fresher read) instead of being
// overwritten.
import type { KubeClient } from "./client.ts";
import { isNotFound } from "./errors.ts";
import type { ResourceType } from "./gvr.ts";
import type { KubeObject } from "./objects.ts";

/** True when `object` lists `finalizerName` in metadata.finalizers. */
export function hasFinalizer(object: KubeObject, finalizerName: string): boolean {
  return object.metadata?.finalizers?.includes(finalizerName) ?? false;
}

/** Where a finalizer is written: the client, the object's resource, and the field manager (optional). */
export interface FinalizerTarget<T extends KubeObject> {
  client: KubeClient;
  resource: ResourceType<T>;
  fieldManager?: string | undefined;
}

/** Adds `finalizerName` to `object` as read; returns the object written, or undefined when it is gone. */
export function addFinalizer<T extends KubeObject>(target: FinalizerTarget<T>, object: T, finalizerName: string): Promise<T | undefined> {
  return writeFinalizers(target, object, [...(object.metadata?.finalizers ?? []), finalizerName]);
}

/** Removes `finalizerName` from `object` as read; returns the object written, or undefined when it is gone. */
export function removeFinalizer<T extends KubeObject>(target: FinalizerTarget<T>, object: T, finalizerName: string): Promise<T | undefined> {
  return writeFinalizers(target, object, (object.metadata?.finalizers ?? []).filter((name) => name !== finalizerName));
}

async function writeFinalizers<T extends KubeObject>({ client, resource, fieldManager }: FinalizerTarget<T>, object: T, finalizers: string[]): Promise<T | undefined> {
  const { name, namespace, resourceVersion } = object.metadata ?? {};
  if (!name || !resourceVersion) {
    throw new Error(`finalizer: ${resource.kind} "${name ?? ""}" has no metadata.${name ? "resourceVersion" : "name"}; expected the object as read from the API server`);
  }
  const patch = { metadata: { finalizers, resourceVersion } };
  try {
    return await client.dynamic.resource<T>(resource, resource.namespaced ? namespace : undefined).patch(name, patch, "merge", fieldManager ? { fieldManager } : {});
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
