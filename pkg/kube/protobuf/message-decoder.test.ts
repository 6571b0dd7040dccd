import { describe, expect, test } from "bun:test";
import { bytesOf, doubleField, intField, messageField, stringField, varint } from "../../../test/support/protobuf-wire.ts";
import { MessageDecoder } from "./message-decoder.ts";
import { WireFormatError } from "./wire-reader.ts";
import { FieldFlag, type WireSchema } from "./wire-schema.ts";

const { repeated, pointer, omitEmpty, inline, map, omitZero } = FieldFlag;

// A small schema in the generated shape, with each rule of encoding/json the decoder follows.
const schema: WireSchema = {
  version: "test",
  kinds: { "v1/Thing": "test/v1.Thing" },
  messages: {
    "test/v1.Thing": [
      [1, "metadata", 0, "meta/v1.ObjectMeta"],
      [2, "name", 0, "string"],
      [3, "note", omitEmpty, "string"],
      [4, "count", omitEmpty, "int32"],
      [5, "replicas", pointer | omitEmpty, "int32"],
      [6, "size", 0, "int64"],
      [7, "tags", repeated | omitEmpty, "string"],
      [8, "items", repeated, "test/v1.Item"],
      [9, "labels", map | omitEmpty, "string"],
      [10, "limits", map | omitEmpty, "Quantity"],
      [11, "started", omitEmpty, "Time"],
      [12, "seen", pointer | omitEmpty, "MicroTime"],
      [13, "port", 0, "IntOrString"],
      [14, "timeout", 0, "Duration"],
      [15, "source", inline, "test/v1.Source"],
      [16, "data", omitEmpty, "bytes"],
      [17, "ratio", omitEmpty, "double"],
      [18, "raw", omitEmpty, "RawExtension"],
      [19, "spec", omitEmpty, "test/v1.Spec"],
      [20, "ended", omitZero, "Time"],
      [21, "extra", map | omitEmpty, "test/v1.Extra"],
      [22, "enabled", 0, "bool"],
      [23, "ports", repeated | omitEmpty, "int32"],
    ],
    "test/v1.Item": [
      [1, "key", 0, "string"],
      [2, "value", omitEmpty, "string"],
    ],
    "test/v1.Source": [[1, "path", omitEmpty, "string"]],
    "test/v1.Spec": [
      [1, "nodeName", omitEmpty, "string"],
      [2, "hostIP", omitEmpty, "string"],
    ],
    "test/v1.Extra": [[1, "", repeated, "string"]],
    "meta/v1.ObjectMeta": [
      [1, "name", omitEmpty, "string"],
      [8, "creationTimestamp", omitEmpty, "Time"],
      [17, "managedFields", repeated | omitEmpty, "meta/v1.ManagedFieldsEntry"],
    ],
    "meta/v1.ManagedFieldsEntry": [[1, "manager", omitEmpty, "string"]],
  },
};

const decoder = new MessageDecoder(schema);
const timeOf = (seconds: number, nanos = 0) => [...intField(1, seconds), ...(nanos ? intField(2, nanos) : [])];

describe("MessageDecoder", () => {
  test("writes what encoding/json writes: zero scalars without omitempty, null for nil slices, maps and pointers", () => {
    const thing = decoder.decode("test/v1.Thing", bytesOf(stringField(2, ""), intField(4, 0), intField(6, 0)));
    expect(thing).toEqual({
      metadata: { creationTimestamp: null },
      name: "",
      size: 0,
      items: null,
      started: null,
      port: 0,
      timeout: "0s",
      enabled: false,
      // Structs are never empty to omitempty: a zero RawExtension is null, a zero Spec {}.
      raw: null,
      spec: {},
    });
  });

  test("decodes every kind of field as its JSON form", () => {
    const bytes = bytesOf(
      messageField(1, stringField(1, "web-0"), messageField(8, timeOf(1_764_274_493)), messageField(17, stringField(1, "kubectl"))),
      stringField(2, "web"),
      stringField(3, "héllo wörld, a string longer than twenty-four bytes"),
      intField(4, -3),
      intField(5, 0),
      intField(6, 9_007_199_254_740_993n),
      stringField(7, "a"),
      stringField(7, "b"),
      messageField(8, stringField(1, "k")),
      messageField(9, stringField(1, "app"), stringField(2, "web")),
      messageField(10, stringField(1, "memory"), messageField(2, stringField(1, "128Mi"))),
      messageField(12, timeOf(1_764_274_493, 120_000)),
      messageField(13, intField(1, 1), intField(2, 0), stringField(3, "http")),
      messageField(14, intField(1, 90_000_000_000)),
      messageField(15, stringField(1, "/data")),
      messageField(16, [1, 2, 3]),
      doubleField(17, 0.25),
      messageField(18, stringField(1, '{"a":[1,2]}')),
      messageField(21, stringField(1, "groups"), messageField(2, stringField(1, "x"), stringField(1, "y"))),
      intField(22, 1),
    );
    expect(decoder.decode("test/v1.Thing", bytes)).toEqual({
      metadata: { name: "web-0", creationTimestamp: "2025-11-27T20:14:53Z", managedFields: [{ manager: "kubectl" }] },
      name: "web",
      note: "héllo wörld, a string longer than twenty-four bytes",
      count: -3,
      replicas: 0,
      size: 9_007_199_254_740_992, // rounded as JSON.parse rounds 9007199254740993
      tags: ["a", "b"],
      items: [{ key: "k" }],
      labels: { app: "web" },
      limits: { memory: "128Mi" },
      started: null,
      seen: "2025-11-27T20:14:53.000120Z",
      port: "http",
      timeout: "1m30s",
      path: "/data",
      data: "AQID",
      ratio: 0.25,
      raw: { a: [1, 2] },
      spec: {},
      extra: { groups: ["x", "y"] },
      enabled: true,
    });
  });

  test("keeps only the projected fields, and metadata without managedFields when asked", () => {
    const bytes = bytesOf(
      messageField(1, stringField(1, "web-0"), messageField(17, stringField(1, "kubectl"))),
      stringField(2, "web"),
      stringField(3, "skipped"),
      messageField(9, stringField(1, "app"), stringField(2, "web")),
      messageField(9, stringField(1, "tier"), stringField(2, "front")),
      messageField(19, stringField(1, "node-1"), stringField(2, "10.0.0.1")),
    );
    const fields = new Map<string, Map<string, true> | true>([
      ["metadata", true],
      ["spec", new Map([["nodeName", true]])],
      ["labels", new Map([["tier", true]])],
    ]);
    expect(decoder.decode("test/v1.Thing", bytes, { fields, withoutManagedFields: true })).toEqual({
      metadata: { name: "web-0", creationTimestamp: null },
      spec: { nodeName: "node-1" },
      labels: { tier: "front" },
    });
  });

  test("skips fields it does not know (a newer server's) and reads packed repeated numbers", () => {
    const withUnknown = bytesOf(stringField(2, "web"), stringField(99, "new"), intField(98, 7), intField(23, 80), messageField(23, varint(443), varint(8080)));
    expect(decoder.decode("test/v1.Thing", withUnknown)).toMatchObject({ name: "web", ports: [80, 443, 8080] });
  });

  test("a cut or corrupt message is a WireFormatError, never a read past its end", () => {
    const whole = bytesOf(stringField(2, "web"), messageField(8, stringField(1, "k")));
    // A cut between two fields leaves a valid, shorter message; every other cut must fail.
    for (let cut = 1; cut < whole.length; cut++) {
      if (cut === 5) continue;
      expect(() => decoder.decode("test/v1.Thing", whole.subarray(0, cut))).toThrow(WireFormatError);
    }
    expect(() => decoder.decode("test/v1.Thing", new Uint8Array([0x12, 0x05, 0x61]))).toThrow("runs past the end");
    expect(() => decoder.decode("test/v1.Thing", new Uint8Array([...varint(2 << 3), 1]))).toThrow("wire type 0, expected 2");
    expect(() => decoder.decode("test/v1.Thing", new Uint8Array(varint((99 << 3) | 3)))).toThrow("unsupported wire type 3");
  });
});
