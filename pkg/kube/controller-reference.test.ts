import { describe, expect, test } from "bun:test";
import { AlreadyOwnedError, controllerReference, ownerReference, setControllerReference, setOwnerReference } from "./controller-reference.ts";
import { type ObjectOf, resources } from "./gvr.ts";
import { controllerRefOf } from "./owner-references.ts";

type ReplicaSet = ObjectOf<typeof resources.replicaSets>;

const replicaSet = (name: string, namespace = "shop"): ReplicaSet => ({ metadata: { name, namespace, uid: `uid-${name}` } });
const pod = (namespace: string | undefined) => ({ kind: "Pod", metadata: { name: "web-1", ...(namespace && { namespace }) } });

describe("ownerReference and controllerReference", () => {
  test("take apiVersion and kind from the owner's resource type", () => {
    expect(ownerReference(replicaSet("web"), resources.replicaSets)).toEqual({ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "uid-web" });
    expect(controllerReference(replicaSet("web"), resources.replicaSets)).toEqual({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "web",
      uid: "uid-web",
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  test("an owner without a uid (not read from the API server) is refused", () => {
    expect(() => ownerReference({ metadata: { name: "web" } }, resources.replicaSets)).toThrow(
      'owner ReplicaSet "web" has no metadata.uid; expected the owner as read from the API server',
    );
  });
});

describe("setControllerReference", () => {
  test("adds the reference, keeps the others, and returns the same object", () => {
    const object = { ...pod("shop"), metadata: { ...pod("shop").metadata, ownerReferences: [ownerReference(replicaSet("audit"), resources.replicaSets)] } };
    expect(setControllerReference(object, replicaSet("web"), resources.replicaSets)).toBe(object);
    expect(object.metadata.ownerReferences.map((ref) => [ref.name, ref.controller])).toEqual([
      ["audit", undefined],
      ["web", true],
    ]);
    expect(controllerRefOf(object)?.uid).toBe("uid-web");
  });

  test("the same owner again, even through another version or after a re-create, replaces its reference", () => {
    const object = setControllerReference(pod("shop"), replicaSet("web"), resources.replicaSets);
    const recreated = { metadata: { ...replicaSet("web").metadata, uid: "uid-web-2" } };
    const beta = { ...resources.replicaSets, version: "v1beta2" };
    setControllerReference(object, recreated, beta);
    expect(object.metadata.ownerReferences).toEqual([{ ...controllerReference(recreated, beta) }]);
  });

  test("another controller is refused with AlreadyOwnedError, and the object is left as it was", () => {
    const object = setControllerReference(pod("shop"), replicaSet("web"), resources.replicaSets);
    const before = structuredClone(object);
    const refusal = (() => {
      try {
        setControllerReference(object, replicaSet("api"), resources.replicaSets);
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(AlreadyOwnedError);
    expect((refusal as Error).message).toBe("Pod shop/web-1 is already controlled by ReplicaSet web (uid uid-web); it cannot have a second controller");
    expect(object).toEqual(before);
  });

  test("a namespaced owner must be in the object's namespace; a cluster-scoped object cannot have one", () => {
    expect(() => setControllerReference(pod("other"), replicaSet("web"), resources.replicaSets)).toThrow(
      'Pod other/web-1 is in namespace "other"; expected an owner in the same namespace, not ReplicaSet shop/web',
    );
    expect(() => setControllerReference(pod(undefined), replicaSet("web"), resources.replicaSets)).toThrow(
      "Pod web-1 is cluster-scoped (no metadata.namespace); expected a cluster-scoped owner, not ReplicaSet shop/web",
    );
  });

  test("a cluster-scoped owner may own an object in any namespace", () => {
    const namespace = { metadata: { name: "team-a", uid: "uid-ns" } };
    expect(controllerRefOf(setControllerReference(pod("team-b"), namespace, resources.namespaces))).toMatchObject({ kind: "Namespace", name: "team-a" });
  });
});

describe("setOwnerReference", () => {
  test("adds a non-controller reference next to an existing controller", () => {
    const object = setControllerReference(pod("shop"), replicaSet("web"), resources.replicaSets);
    setOwnerReference(object, replicaSet("audit"), resources.replicaSets);
    expect(object.metadata.ownerReferences.map((ref) => [ref.name, ref.controller ?? false])).toEqual([
      ["web", true],
      ["audit", false],
    ]);
    expect(() => setOwnerReference(pod("other"), replicaSet("web"), resources.replicaSets)).toThrow("expected an owner in the same namespace");
  });
});
