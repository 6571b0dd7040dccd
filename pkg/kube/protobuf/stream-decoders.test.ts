import { describe, expect, test } from "bun:test";
import { bytesField, enveloped, intField, messageField, stringField } from "../../../test/support/protobuf-wire.ts";
import { decodeProtobufList } from "./list-stream-decoder.ts";
import { MessageDecoder } from "./message-decoder.ts";
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
      [6, "resourceVersion", 4, "string"],
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
async function* decodeProtobufWatchEvents(messages: MessageDecoder, body: ReadableStream<Uint8Array>): AsyncGenerator<WatchEvent<KubeObject>> {
  const watch = new ProtobufWatchDecoder(messages);
  for await (const chunk of body) yield* watch.push(chunk);
  yield* watch.end();
}

const thing = (name: string, value: string) => [...messageField(1, stringField(1, name), stringField(6, "7")), ...stringField(2, value)];
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
