import { describe, expect, test } from "bun:test";
import { obj } from "../../test/support/objects.ts";
import { controllerRefIndex, controllerRefIndexKey, controllerRefIndexName } from "./index-funcs.ts";
import { Indexer } from "./indexer.ts";

const controlledBy = (key: string, kind: string, name: string, uid: string) =>
  obj(key, { ownerReferences: [{ apiVersion: "apps/v1", kind, name, uid, controller: true }] });

describe("controllerRefIndex", () => {
  test("files a controlled object under namespace/Kind/Name/UID and an orphan under its namespace", () => {
    expect(controllerRefIndex(controlledBy("ns/a", "ReplicaSet", "web", "u1"))).toEqual(["ns/ReplicaSet/web/u1"]);
    expect(controllerRefIndex(obj("ns/b"))).toEqual(["ns"]);
    // An owner that is not the controller leaves the object an orphan.
    expect(controllerRefIndex(obj("ns/c", { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "u2" }] }))).toEqual(["ns"]);
  });

  test("the same UID under another kind or name is another key", () => {
    const indexer = new Indexer({ [controllerRefIndexName]: controllerRefIndex });
    indexer.add(controlledBy("ns/mine", "ReplicaSet", "web", "u1"));
    indexer.add(controlledBy("ns/other-kind", "StatefulSet", "web", "u1"));
    indexer.add(controlledBy("ns/other-name", "ReplicaSet", "api", "u1"));
    indexer.add(obj("ns/orphan"));
    indexer.add(obj("elsewhere/orphan"));
    const names = (key: string) => indexer.byIndex(controllerRefIndexName, key).map((o) => o.metadata?.name);
    expect(names(controllerRefIndexKey("ns", { kind: "ReplicaSet", name: "web", uid: "u1" }))).toEqual(["mine"]);
    expect(names(controllerRefIndexKey("ns", undefined))).toEqual(["orphan"]);
  });
});
