// Adds or removes the test's finalizer while the controllers may be writing the same object (their
// own finalizers, ownerReferences): read, change, write at that resourceVersion, again on conflict.
import type { ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import { isConflict } from "../../pkg/kube/errors.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { heldFinalizer } from "./case-scope.ts";

const attempts = 5;

/** "held" or "released"; "unchanged" when the finalizer was already as asked. `annotations` are merged in with it. */
export async function setHeld<T extends KubeObject>(
  resource: ResourceClient<T>,
  name: string,
  held: boolean,
  annotations: Record<string, string> = {},
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const current = await resource.get(name);
    const finalizers = current.metadata?.finalizers ?? [];
    if (finalizers.includes(heldFinalizer) === held) return "unchanged";
    const changed = held ? [...finalizers, heldFinalizer] : finalizers.filter((finalizer) => finalizer !== heldFinalizer);
    const metadata = { ...current.metadata, finalizers: changed, annotations: { ...current.metadata?.annotations, ...annotations } };
    try {
      await resource.update({ ...current, metadata });
      return held ? "held" : "released";
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
    }
  }
}
