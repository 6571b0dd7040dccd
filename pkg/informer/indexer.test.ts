import { describe, expect, test } from "bun:test";
import { obj } from "../../test/support/objects.ts";
import { DeletedFinalStateUnknown } from "./deltas.ts";
import type { KubeObject } from "../kube/objects.ts";
import { namespaceIndex, namespaceIndexName } from "./index-funcs.ts";
import { Indexer } from "./indexer.ts";
import { deletionHandlingKeyFunc, metaNamespaceKeyFunc, splitMetaNamespaceKey } from "./keys.ts";

// An index that files an object under several values (one per owner), which the built-in ones never do.
const ownerUidIndexName = "ownerUid";
const ownerUidIndex = (obj: KubeObject): string[] => (obj.metadata?.ownerReferences ?? []).map((ref) => ref.uid);

const owned = (key: string, ...uids: string[]) =>
  obj(key, { ownerReferences: uids.map((uid) => ({ apiVersion: "apps/v1", kind: "ReplicaSet", name: `rs-${uid}`, uid })) });

function newIndexer() {
  return new Indexer({ [namespaceIndexName]: namespaceIndex, [ownerUidIndexName]: ownerUidIndex });
}

const names = (objects: { metadata?: { name?: string } }[]) => objects.map((o) => o.metadata?.name).sort();

describe("keys", () => {
  test("metaNamespaceKeyFunc: namespace/name, or name when cluster-scoped", () => {
    expect(metaNamespaceKeyFunc(obj("ns/a"))).toBe("ns/a");
    expect(metaNamespaceKeyFunc(obj("node-1"))).toBe("node-1");
    expect(() => metaNamespaceKeyFunc({ metadata: {} })).toThrow();
  });

  test("deletionHandlingKeyFunc uses the tombstone's key", () => {
    expect(deletionHandlingKeyFunc(new DeletedFinalStateUnknown("ns/old", obj("ns/other")))).toBe("ns/old");
    expect(deletionHandlingKeyFunc(obj("ns/a"))).toBe("ns/a");
  });

  test("splitMetaNamespaceKey", () => {
    expect(splitMetaNamespaceKey("ns/a")).toEqual({ namespace: "ns", name: "a" });
    expect(splitMetaNamespaceKey("a")).toEqual({ namespace: "", name: "a" });
    expect(() => splitMetaNamespaceKey("a/b/c")).toThrow();
  });
});

describe("Indexer", () => {
  test("add then get, getByKey, list, listKeys", () => {
    const indexer = newIndexer();
    indexer.add(obj("ns/a"));
    indexer.add(obj("ns/b"));
    expect(indexer.get(obj("ns/a"))?.metadata?.name).toBe("a");
    expect(indexer.getByKey("ns/b")?.metadata?.name).toBe("b");
    expect(indexer.getByKey("ns/c")).toBeUndefined();
    expect(names(indexer.list())).toEqual(["a", "b"]);
    expect(indexer.listKeys().sort()).toEqual(["ns/a", "ns/b"]);
  });

  test("putByKey files the object under the key it is given, with its index values", () => {
    const indexer = newIndexer();
    indexer.putByKey("ns/a", owned("ns/a", "u1"));
    indexer.putByKey("ns/a", owned("ns/a", "u2", "u2"));
    expect(indexer.getByKey("ns/a")?.metadata?.ownerReferences?.map((ref) => ref.uid)).toEqual(["u2", "u2"]);
    expect(indexer.byIndex(ownerUidIndexName, "u1")).toEqual([]);
    expect(indexer.indexKeys(ownerUidIndexName, "u2")).toEqual(["ns/a"]);
  });

  test("update replaces the object and moves it between index values", () => {
    const indexer = newIndexer();
    indexer.add(owned("ns/a", "u1", "u2"));
    indexer.update(owned("ns/a", "u2", "u3"));
    expect(indexer.byIndex(ownerUidIndexName, "u1")).toEqual([]);
    expect(names(indexer.byIndex(ownerUidIndexName, "u2"))).toEqual(["a"]);
    expect(names(indexer.byIndex(ownerUidIndexName, "u3"))).toEqual(["a"]);
    expect(indexer.listIndexFuncValues(ownerUidIndexName).sort()).toEqual(["u2", "u3"]);
    expect(indexer.list()).toHaveLength(1);
  });

  test("delete removes the object and its index entries, also by tombstone", () => {
    const indexer = newIndexer();
    indexer.add(owned("ns/a", "u1"));
    indexer.add(owned("ns/b", "u1"));
    indexer.delete(obj("ns/a"));
    expect(indexer.getByKey("ns/a")).toBeUndefined();
    expect(indexer.indexKeys(ownerUidIndexName, "u1")).toEqual(["ns/b"]);
    indexer.delete(new DeletedFinalStateUnknown("ns/b", obj("ns/b")));
    expect(indexer.listIndexFuncValues(ownerUidIndexName)).toEqual([]);
    expect(indexer.listIndexFuncValues(namespaceIndexName)).toEqual([]);
    indexer.delete(obj("ns/never-there"));
    expect(indexer.list()).toEqual([]);
  });

  test("replace swaps the content and rebuilds indices", async () => {
    const indexer = newIndexer();
    indexer.add(obj("ns1/a"));
    await indexer.replace([obj("ns2/b"), obj("ns2/c")], "10");
    expect(indexer.listKeys().sort()).toEqual(["ns2/b", "ns2/c"]);
    expect(indexer.byIndex(namespaceIndexName, "ns1")).toEqual([]);
    expect(names(indexer.byIndex(namespaceIndexName, "ns2"))).toEqual(["b", "c"]);
  });

  test("byIndex finds by value; an unknown index throws", () => {
    const indexer = newIndexer();
    indexer.add(obj("ns1/a"));
    indexer.add(obj("ns2/b"));
    indexer.add(obj("cluster-wide"));
    expect(names(indexer.byIndex(namespaceIndexName, "ns1"))).toEqual(["a"]);
    expect(names(indexer.byIndex(namespaceIndexName, ""))).toEqual(["cluster-wide"]);
    expect(() => indexer.byIndex("nope", "x")).toThrow('index with name "nope" does not exist');
  });

  test("index returns objects sharing any index value with the given object", () => {
    const indexer = newIndexer();
    indexer.add(owned("ns/a", "u1"));
    indexer.add(owned("ns/b", "u2"));
    indexer.add(owned("ns/c", "u3"));
    expect(names(indexer.index(ownerUidIndexName, owned("ns/x", "u1", "u2")))).toEqual(["a", "b"]);
  });

  test("indexKeys returns keys", () => {
    const indexer = newIndexer();
    indexer.add(owned("ns/a", "u1"));
    expect(indexer.indexKeys(ownerUidIndexName, "u1")).toEqual(["ns/a"]);
    expect(indexer.indexKeys(ownerUidIndexName, "u9")).toEqual([]);
  });

  test("listIndexFuncValues lists values that have objects", () => {
    const indexer = newIndexer();
    indexer.add(obj("ns1/a"));
    indexer.add(obj("ns2/b"));
    expect(indexer.listIndexFuncValues(namespaceIndexName).sort()).toEqual(["ns1", "ns2"]);
  });

  test("addIndexers indexes existing objects and refuses a name twice", () => {
    const indexer = new Indexer();
    indexer.add(owned("ns/a", "u1"));
    indexer.addIndexers({ [ownerUidIndexName]: ownerUidIndex });
    expect(indexer.indexKeys(ownerUidIndexName, "u1")).toEqual(["ns/a"]);
    expect(() => indexer.addIndexers({ [ownerUidIndexName]: ownerUidIndex })).toThrow("indexer conflict");
    expect(Object.keys(indexer.getIndexers())).toEqual([ownerUidIndexName]);
  });

  test("an index function that throws leaves the store unchanged", () => {
    const indexer = new Indexer({
      bad: (o) => {
        if (o.metadata?.labels?.explode) throw new Error("boom");
        return ["ok"];
      },
    });
    indexer.add(obj("ns/a"));
    expect(() => indexer.update(obj("ns/a", { labels: { explode: "1" } }))).toThrow("boom");
    expect(indexer.getByKey("ns/a")?.metadata?.labels).toBeUndefined();
    expect(indexer.indexKeys("bad", "ok")).toEqual(["ns/a"]);
  });

  test("lastStoreSyncResourceVersion follows the last change applied: objects written, a list, a bookmark", async () => {
    const indexer = newIndexer();
    expect(indexer.lastStoreSyncResourceVersion()).toBe("");
    indexer.add(obj("ns/a", { resourceVersion: "11" }));
    expect(indexer.lastStoreSyncResourceVersion()).toBe("11");
    indexer.update(obj("ns/a", { resourceVersion: "12" }));
    expect(indexer.lastStoreSyncResourceVersion()).toBe("12");
    indexer.putByKey("ns/b", obj("ns/b", { resourceVersion: "13" }));
    expect(indexer.lastStoreSyncResourceVersion()).toBe("13");
    indexer.delete(obj("ns/a", { resourceVersion: "14" }));
    expect(indexer.lastStoreSyncResourceVersion()).toBe("14");
    // A tombstone's object is an old state: its resourceVersion says nothing about now.
    indexer.delete(new DeletedFinalStateUnknown("ns/b", obj("ns/b", { resourceVersion: "13" })));
    expect(indexer.lastStoreSyncResourceVersion()).toBe("14");
    // A list is as of its own resourceVersion, whatever its objects carry.
    await indexer.replace([obj("ns/c", { resourceVersion: "15" })], "20");
    expect(indexer.lastStoreSyncResourceVersion()).toBe("20");
    indexer.bookmark("25");
    expect(indexer.lastStoreSyncResourceVersion()).toBe("25");
    expect(indexer.listKeys()).toEqual(["ns/c"]);
  });

  test("the resourceVersion gauge follows the store's resourceVersion, as its last 15 digits", async () => {
    const values: number[] = [];
    const indexer = new Indexer({}, { set: (value) => void values.push(value) });
    indexer.add(obj("ns/a", { resourceVersion: "11" }));
    await indexer.replace([], "1234567890123456789");
    indexer.bookmark("20");
    indexer.delete(new DeletedFinalStateUnknown("ns/a", obj("ns/a", { resourceVersion: "11" })));
    expect(values).toEqual([11, 567890123456789, 20]);
  });

  test("replace builds the new content aside: a reader during a big replace sees the old content whole, then the new", async () => {
    const indexer = newIndexer();
    indexer.add(obj("old/a"));
    const list = Array.from({ length: 50_000 }, (_, i) => obj(`new/o-${i}`));
    let seenMeanwhile: string | undefined;
    setTimeout(() => (seenMeanwhile = `${indexer.size} ${indexer.listIndexFuncValues(namespaceIndexName).join(",")}`), 0);
    await indexer.replace(list, "2");
    expect(seenMeanwhile).toBe("1 old");
    expect(indexer.size).toBe(50_000);
    expect(indexer.listIndexFuncValues(namespaceIndexName)).toEqual(["new"]);
  });

  test("replace leaves out, and reports, an object an index function throws for", async () => {
    const indexer = new Indexer({
      bad: (o) => {
        if (o.metadata?.labels?.explode) throw new Error("boom");
        return ["ok"];
      },
    });
    const failed: string[] = [];
    await indexer.replaceByKey(
      ["ns/a", "ns/b"],
      [obj("ns/a"), obj("ns/b", { labels: { explode: "1" } })],
      "5",
      (key, _obj, err) => void failed.push(`${key}: ${(err as Error).message}`),
    );
    expect(indexer.listKeys()).toEqual(["ns/a"]);
    expect(indexer.indexKeys("bad", "ok")).toEqual(["ns/a"]);
    expect(failed).toEqual(["ns/b: boom"]);
  });
});
