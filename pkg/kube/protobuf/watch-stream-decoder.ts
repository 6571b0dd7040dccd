// Reads a protobuf watch body ("application/vnd.kubernetes.protobuf;stream=watch"): frames of a
// 4-byte big-endian length and a metav1.WatchEvent, whose object (a RawExtension) holds the
// enveloped object.
import { TimeSlicer } from "../../eventloop/time-slicer.ts";
import { noteBuiltFrom } from "../field-tree.ts";
import type { KubeObject, WatchEvent } from "../objects.ts";
import { ByteQueue } from "./byte-queue.ts";
import { decodeEnveloped } from "./envelope.ts";
import type { DecodeOptions, MessageDecoder } from "./message-decoder.ts";
import { WireFormatError, WireReader } from "./wire-reader.ts";

/** Frames larger than this are refused as corrupt: the API server's own limit on a request is far below it. */
const maxFrameBytes = 256 * 1024 * 1024;

/** Events of a protobuf watch body, read from its chunks; a corrupt frame throws a WireFormatError. */
export async function* decodeProtobufWatchEvents<T extends KubeObject>(
  decoder: MessageDecoder,
  chunks: AsyncIterable<Uint8Array>,
  options: DecodeOptions = {},
): AsyncGenerator<WatchEvent<T>> {
  const queue = new ByteQueue();
  const slicer = new TimeSlicer({ callsPerCheck: 32 });
  for await (const chunk of chunks) {
    queue.push(chunk);
    while (queue.length >= 4) {
      const size = ((queue.at(0) << 24) | (queue.at(1) << 16) | (queue.at(2) << 8) | queue.at(3)) >>> 0;
      if (size > maxFrameBytes) throw new WireFormatError(`watch frame of ${size} bytes: the stream is corrupt`);
      if (queue.length < 4 + size) break;
      queue.skip(4);
      yield decodeEvent<T>(decoder, queue.take(size), options);
      if (slicer.due()) await slicer.yield();
    }
  }
  if (queue.length > 0) throw new WireFormatError(`watch stream ended inside a frame (${queue.length} bytes left)`);
}

/** One metav1.WatchEvent: type (1), object (2, a RawExtension whose raw (1) is the enveloped object). */
function decodeEvent<T extends KubeObject>(decoder: MessageDecoder, frame: Uint8Array, options: DecodeOptions): WatchEvent<T> {
  const reader = new WireReader(frame);
  let type = "";
  let object: Uint8Array | undefined;
  while (reader.pos < reader.end) {
    const tag = reader.uint32();
    if (tag === 0x0a) type = reader.string();
    else if (tag === 0x12) {
      const end = reader.delimitedEnd();
      while (reader.pos < end) {
        const inner = reader.uint32();
        if (inner === 0x0a) object = reader.bytesField();
        else reader.skip(inner & 7);
      }
    } else reader.skip(tag & 7);
  }
  if (!type || object === undefined) throw new WireFormatError(`malformed watch event: ${type ? "no object" : "no type"}`);
  // An ERROR event's Status is decoded whole; everything else as the informer keeps it.
  if (type === "ERROR") return { type, object: decodeEnveloped(decoder, object) } as unknown as WatchEvent<T>;
  const decoded = decodeEnveloped(decoder, object, options);
  return { type, object: options.fields ? noteBuiltFrom(decoded, options.fields) : decoded } as unknown as WatchEvent<T>;
}
