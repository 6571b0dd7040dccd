import { describe, expect, test } from "bun:test";
import { bytesField, enveloped, intField, messageField, stringField } from "../../../test/support/protobuf-wire.ts";
import { decodeProtobufList } from "./list-stream-decoder.ts";
import { MessageDecoder } from "./message-decoder.ts";
import type { HeldVersion } from "../list-watch.ts";
import type { KubeObject, WatchEvent } from "../objects.ts";
import { ProtobufWatchDecoder } from "./watch-stream-decoder.ts";
import { WireFormatError } from "./wire-reader.ts";
import type { WireSchema } from "./wire-schema.ts";

const schema: WireSchema = {
  version: "test",
  kinds: { "v1/Thing": "test/v1.Thing", "v1/ThingList": "test/v1.ThingList", "v1/Status": "meta/v1.Status" },
  messages: {
    "test/v1.Thing": [
      [1, "metadata", 0, "meta/v1.ObjectMeta"],
      [2, "value", 4, "string"],
    ],
    "test/v1.ThingList": [
      [1, "metadata", 0, "meta/v1.ListMeta"],
      [2, "items", 1, "test/v1.Thing"],
    ],
    "meta/v1.ObjectMeta": [
      [1, "name", 4, "string"],
      [3, "namespace", 4, "string"],
      [6, "resourceVersion", 4, "string"],
      [12, "annotations", 36, "string"],
    ],
    "meta/v1.ListMeta": [
      [2, "resourceVersion", 4, "string"],
      [3, "continue", 4, "string"],
    ],
    "meta/v1.Status": [
      [3, "message", 4, "string"],
      [6, "code", 4, "int32"],
    ],
  },
};
const decoder = new MessageDecoder(schema);

/** Every event of the stream, as the REST client reads them. */
async function* decodeProtobufWatchEvents(messages: MessageDecoder, body: ReadableStream<Uint8Array>, held?: HeldVersion): AsyncGenerator<WatchEvent<KubeObject>> {
  const watch = new ProtobufWatchDecoder(messages, { held });
  for await (const chunk of body) yield* watch.push(chunk);
  yield* watch.end();
}

const thing = (name: string, value: string, resourceVersion = "7") => [...messageField(1, stringField(1, name), stringField(6, resourceVersion)), ...stringField(2, value)];
const list = enveloped("v1", "ThingList", [...messageField(1, stringField(2, "42")), ...bytesField(2, thing("a", "x")), ...bytesField(2, thing("b", "y".repeat(300)))]);

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.slice(start, start + size);
}

function frames(...events: Uint8Array[]): Uint8Array {
  const parts = events.map((event) => {
    const frame = new Uint8Array(4 + event.length);
    new DataView(frame.buffer).setUint32(0, event.length);
    frame.set(event, 4);
    return [...frame];
  });
  return new Uint8Array(parts.flat());
}

const watchEvent = (type: string, object: Uint8Array) => new Uint8Array([...stringField(1, type), ...messageField(2, bytesField(1, object))]);

function stream(bytes: Uint8Array, size = 7): ReadableStream<Uint8Array> {
  const source = chunked(bytes, size);
  return new ReadableStream({
    async pull(controller) {
      const next = await source.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}

describe("protobuf list body", () => {
  test("decodes the same list however the body is cut into chunks", async () => {
    const expected = {
      apiVersion: "v1",
      kind: "ThingList",
      metadata: { resourceVersion: "42" },
      items: [
        { metadata: { name: "a", resourceVersion: "7" }, value: "x" },
        { metadata: { name: "b", resourceVersion: "7" }, value: "y".repeat(300) },
      ],
    };
    for (const size of [1, 2, 3, 5, 64, 4096]) expect(await decodeProtobufList(decoder, chunked(list, size))).toEqual(expected);
  });

  test("a body cut short anywhere is an error, not a shorter list", async () => {
    for (let cut = 0; cut < list.length; cut++) {
      const error = await decodeProtobufList(decoder, chunked(list.subarray(0, cut), 16)).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(WireFormatError);
    }
  });

  test("an unknown kind and a JSON body are named", async () => {
    const other = enveloped("v1", "Gadget", []);
    await expect(decodeProtobufList(decoder, chunked(other, 8))).rejects.toThrow('no protobuf schema for v1, kind "Gadget"');
    await expect(decodeProtobufList(decoder, chunked(new TextEncoder().encode('{"kind":"ThingList"}'), 8))).rejects.toThrow("not a Kubernetes protobuf body");
  });
});

/** Objects held under "namespace/name" in one resourceVersion each; `asked` records every lookup. */
function holding(...objects: KubeObject[]): { held: HeldVersion; asked: string[] } {
  const byKey = new Map(objects.map((o) => [o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata?.name ?? ""), o]));
  const asked: string[] = [];
  const held: HeldVersion = (namespace, name, resourceVersion) => {
    asked.push(`${namespace}/${name}@${resourceVersion}`);
    const object = byKey.get(namespace ? `${namespace}/${name}` : name);
    return object?.metadata?.resourceVersion === resourceVersion ? object : undefined;
  };
  return { held, asked };
}

describe("held versions", () => {
  const a = { apiVersion: "v1", kind: "Thing", metadata: { name: "a", resourceVersion: "7" }, value: "x" };
  const b = { apiVersion: "v1", kind: "Thing", metadata: { name: "b", resourceVersion: "6" }, value: "old" };

  test("a list item held in the same resourceVersion is the held object itself; a newer one is decoded", async () => {
    const { held, asked } = holding(a, b);
    for (const size of [1, 5, 4096]) {
      const decoded = await decodeProtobufList(decoder, chunked(list, size), { held });
      expect(decoded.items[0]).toBe(a);
      expect(decoded.items[1]).not.toBe(b);
      expect(decoded.items[1]).toEqual({ metadata: { name: "b", resourceVersion: "7" }, value: "y".repeat(300) } as never);
    }
    expect(asked.slice(0, 2)).toEqual(["/a@7", "/b@7"]);
  });

  test("the namespace is read from the metadata, wherever it comes among its fields", () => {
    const namespaced = { metadata: { namespace: "ns", name: "a", resourceVersion: "7" } };
    const { held } = holding(namespaced);
    const bytes = new Uint8Array([...stringField(2, "v"), ...messageField(1, stringField(6, "7"), stringField(1, "a"), stringField(3, "ns"))]);
    expect(decoder.heldObject("test/v1.Thing", bytes, held)).toBe(namespaced as never);
    expect(decoder.heldObject("test/v1.Thing", new Uint8Array(thing("a", "v")), held)).toBeUndefined();
    // A message without an ObjectMeta is never looked up.
    expect(decoder.heldObject("meta/v1.Status", new Uint8Array(stringField(3, "a")), held)).toBeUndefined();
  });

  test("a streaming list's ADDED events are looked up until the bookmark that ends its initial events, never after", async () => {
    const { held, asked } = holding(a);
    const end = enveloped("v1", "Thing", [...messageField(1, stringField(6, "9"), messageField(12, stringField(1, "k8s.io/initial-events-end"), stringField(2, "true")))]);
    const body = frames(
      watchEvent("ADDED", enveloped("v1", "Thing", thing("a", "x"))),
      watchEvent("BOOKMARK", end),
      watchEvent("ADDED", enveloped("v1", "Thing", thing("a", "x"))),
      watchEvent("MODIFIED", enveloped("v1", "Thing", thing("a", "x"))),
    );
    const events = [];
    for await (const event of decodeProtobufWatchEvents(decoder, stream(body, 64), held)) events.push(event);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK", "ADDED", "MODIFIED"]);
    expect(events[0]?.object).toBe(a as never);
    expect(events[2]?.object).not.toBe(a as never);
    expect(events[2]?.object).toEqual(a as never);
    expect(asked).toEqual(["/a@7"]);
  });
});

describe("protobuf watch stream", () => {
  test("yields each framed event with its object's apiVersion and kind", async () => {
    const body = frames(watchEvent("ADDED", enveloped("v1", "Thing", thing("a", "x"))), watchEvent("ERROR", enveloped("v1", "Status", [...stringField(3, "too old"), ...intField(6, 410)])));
    const events = [];
    for await (const event of decodeProtobufWatchEvents(decoder, stream(body))) events.push(event);
    expect(events).toEqual([
      { type: "ADDED", object: { apiVersion: "v1", kind: "Thing", metadata: { name: "a", resourceVersion: "7" }, value: "x" } },
      { type: "ERROR", object: { apiVersion: "v1", kind: "Status", message: "too old", code: 410 } },
    ] as never);
  });

  test("a corrupt frame or a stream cut inside a frame throws a WireFormatError", async () => {
    const drain = async (bytes: Uint8Array) => {
      for await (const _ of decodeProtobufWatchEvents(decoder, stream(bytes))) {
        // only the error matters
      }
    };
    const good = frames(watchEvent("ADDED", enveloped("v1", "Thing", thing("a", "x"))));
    await expect(drain(good.subarray(0, good.length - 3))).rejects.toThrow("watch stream ended inside a frame");
    await expect(drain(frames(new Uint8Array([0xff, 0xff, 0xff])))).rejects.toBeInstanceOf(WireFormatError);
    await expect(drain(frames(watchEvent("ADDED", new TextEncoder().encode("this is not protobuf"))))).rejects.toThrow("not a Kubernetes protobuf body");
    await expect(drain(new Uint8Array([0x7f, 0xff, 0xff, 0xff]))).rejects.toThrow("the stream is corrupt");
  });
});
