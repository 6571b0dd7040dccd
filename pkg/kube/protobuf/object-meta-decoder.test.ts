import { describe, expect, test } from "bun:test";
import { bytesOf, intField, messageField, stringField, tag, varint } from "../../../test/support/protobuf-wire.ts";
import { kubernetesDecoder } from "./kubernetes-decoder.ts";
import { hasObjectMetaSchema } from "./object-meta-decoder.ts";
import { kubernetesSchema } from "./schema.generated.ts";
import type { DecodeOptions } from "./message-decoder.ts";

const decoder = kubernetesDecoder();
const timeOf = (seconds: number, nanos = 0) => [...intField(1, seconds), ...(nanos ? intField(2, nanos) : [])];
const entry = (field: number, key: string, value: string) => messageField(field, stringField(1, key), stringField(2, value));

// An ObjectMeta inside an object is decoded by the written code; decoded on its own, as the
// top-level message, by the schema interpreter. Both must build the same object, key order included.
function bothWays(metadata: number[], options: DecodeOptions = {}): { written: unknown; interpreted: unknown } {
  const written = decoder.decode("meta/v1.PartialObjectMetadata", bytesOf(messageField(1, metadata)), options).metadata;
  const interpreted = decoder.decode("meta/v1.ObjectMeta", bytesOf(metadata), options);
  return { written, interpreted };
}

function expectSame(metadata: number[], options: DecodeOptions = {}): unknown {
  const { written, interpreted } = bothWays(metadata, options);
  expect(JSON.stringify(written)).toBe(JSON.stringify(interpreted));
  return written;
}

function errorOf(decode: () => unknown): string {
  try {
    decode();
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
  return "no error";
}

describe("ObjectMeta's written decoder", () => {
  test("is used with the generated schema: a new ObjectMeta or OwnerReference field needs it updated", () => {
    expect(hasObjectMetaSchema(kubernetesSchema)).toBe(true);
  });

  test("builds the object the schema interpreter builds, field for field", () => {
    const full = [
      ...stringField(1, "web-0"),
      ...stringField(2, "web-"),
      ...stringField(3, "default"),
      ...stringField(4, "/api/v1/namespaces/default/pods/web-0"),
      ...stringField(5, "46571118-2cc2-4a46-896d-546035330239"),
      ...stringField(6, "12345"),
      ...intField(7, 3),
      ...messageField(8, timeOf(1_764_274_493)),
      ...messageField(9, timeOf(1_764_274_500, 5)),
      ...intField(10, 30),
      ...entry(11, "app", "web"),
      ...entry(11, "tier", "ünïcødé ✓"),
      ...entry(12, "note", "a value longer than twenty-four bytes, to skip the cache"),
      ...messageField(13, stringField(1, "ReplicaSet"), stringField(3, "web"), stringField(4, "uid-1"), stringField(5, "apps/v1"), intField(6, 1), intField(7, 0)),
      ...stringField(14, "example.com/guard"),
      ...stringField(14, "kubernetes"),
      ...messageField(17, stringField(1, "kubectl"), stringField(2, "Update"), messageField(7, stringField(1, '{"f:metadata":{}}'))),
    ];
    expect(expectSame(full)).toEqual({
      name: "web-0",
      generateName: "web-",
      namespace: "default",
      selfLink: "/api/v1/namespaces/default/pods/web-0",
      uid: "46571118-2cc2-4a46-896d-546035330239",
      resourceVersion: "12345",
      generation: 3,
      creationTimestamp: "2025-11-27T20:14:53Z",
      deletionTimestamp: "2025-11-27T20:15:00Z",
      deletionGracePeriodSeconds: 30,
      labels: { app: "web", tier: "ünïcødé ✓" },
      annotations: { note: "a value longer than twenty-four bytes, to skip the cache" },
      ownerReferences: [{ kind: "ReplicaSet", name: "web", uid: "uid-1", apiVersion: "apps/v1", controller: true, blockOwnerDeletion: false }],
      finalizers: ["example.com/guard", "kubernetes"],
      managedFields: [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:metadata": {} } }],
    });
    expect(expectSame(full, { withoutManagedFields: true })).not.toHaveProperty("managedFields");
  });

  test("leaves out what encoding/json leaves out, and writes what it writes for empty and absent values", () => {
    const sparse = [
      ...stringField(1, ""),
      ...stringField(3, "default"),
      ...intField(7, 0),
      ...messageField(8, []),
      ...messageField(9, []),
      ...intField(10, 0),
      ...messageField(11, stringField(1, "no-value")),
      ...messageField(12, stringField(2, "no-key")),
      ...messageField(13, intField(6, 0)),
      ...messageField(13, stringField(3, "only-name")),
      ...stringField(14, ""),
    ];
    expect(expectSame(sparse)).toEqual({
      namespace: "default",
      deletionTimestamp: null,
      deletionGracePeriodSeconds: 0,
      labels: { "no-value": "" },
      annotations: { "": "no-key" },
      ownerReferences: [
        { controller: false, kind: "", name: "", uid: "", apiVersion: "" },
        { name: "only-name", kind: "", uid: "", apiVersion: "" },
      ],
      finalizers: [""],
    });
    expect(expectSame([])).toEqual({});
  });

  test("skips unknown fields, keeps the last of a repeated scalar, and reads negative and large int64s", () => {
    expectSame([...stringField(1, "a"), ...stringField(99, "new"), ...intField(98, 7), ...stringField(1, "b"), ...intField(7, -2)]);
    expectSame([...intField(7, 2 ** 49), ...intField(10, 9_007_199_254_740_993n), ...intField(7, 2 ** 48 - 1)]);
    expectSame([...messageField(13, stringField(1, "Pod"), stringField(99, "new"), intField(98, 1))]);
    // managedFields left out whatever its wire type, as the interpreter leaves it out.
    expectSame([...stringField(1, "a"), ...intField(17, 5)], { withoutManagedFields: true });
  });

  test("throws the interpreter's errors for a field of the wrong wire type or a map entry past its end", () => {
    const cases = [
      [...intField(1, 5)],
      [...stringField(7, "3")],
      [...tag(11, 0), ...varint(1)],
      [...messageField(11, intField(2, 1))],
      [...messageField(13, intField(1, 1))],
      [...messageField(13, stringField(6, "yes"))],
      [...intField(17, 5)],
      // A map entry whose value runs past the entry's end (not the message's).
      [...tag(11, 2), ...varint(4), ...tag(2, 2), ...varint(3), 0x61, 0x62, 0x63, ...stringField(3, "default")],
    ];
    for (const metadata of cases) {
      const written = errorOf(() => decoder.decode("meta/v1.PartialObjectMetadata", bytesOf(messageField(1, metadata))));
      const interpreted = errorOf(() => decoder.decode("meta/v1.ObjectMeta", bytesOf(metadata)));
      expect(written).toStartWith("WireFormatError");
      expect(written).toBe(interpreted);
    }
  });

  test("a projection of metadata's own fields goes through the interpreter", () => {
    const fields = new Map([["metadata", new Map([["name", true as const]])]]);
    const metadata = bytesOf(messageField(1, stringField(1, "web-0"), stringField(3, "default")));
    expect(decoder.decode("meta/v1.PartialObjectMetadata", metadata, { fields })).toEqual({ metadata: { name: "web-0" } });
  });
});
