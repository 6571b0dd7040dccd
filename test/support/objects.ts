// Small object builders for informer tests.
import type { KubeObject, ObjectMeta } from "../../pkg/kube/objects.ts";

/** A pod-like object: `pod("ns/name")` or `pod("name")` for a cluster-scoped one. */
export function obj(key: string, meta: Partial<ObjectMeta> = {}, extra: Record<string, unknown> = {}): KubeObject {
  const [namespace, name] = key.includes("/") ? key.split("/") : [undefined, key];
  return { apiVersion: "v1", kind: "Pod", metadata: { name, ...(namespace ? { namespace } : {}), ...meta }, ...extra } as KubeObject;
}
