// Reads a protobuf watch body ("application/vnd.kubernetes.protobuf;stream=watch"): frames of a
// 4-byte big-endian length and a metav1.WatchEvent, whose object (a RawExtension) holds the
// enveloped object. Fed chunk by chunk; returns the events each chunk completes.
import { noteBuiltFrom } from "../field-tree.ts";
import { type HeldVersion, initialEventsEndAnnotation } from "../list-watch.ts";
import type { KubeObject, Status, WatchEvent } from "../objects.ts";
import type { WatchDecoder } from "../watch-decoder.ts";
import { ByteQueue } from "./byte-queue.ts";
import { decodeEnvelopeRead, decodeEnveloped, readEnvelope } from "./envelope.ts";
import type { DecodeOptions, MessageDecoder } from "./message-decoder.ts";
import { WireFormatError, WireReader } from "./wire-reader.ts";

/** Frames larger than this are refused as corrupt: the API server's own limit on a request is far below it. */
const maxFrameBytes = 256 * 1024 * 1024;

/** A corrupt frame throws a WireFormatError. */
export class ProtobufWatchDecoder<T extends KubeObject> implements WatchDecoder<T> {
  private readonly queue = new ByteQueue();
  /** A streaming list's objects held already (DecodeOptions.held): asked until its initial events end. */
  private held: HeldVersion | undefined;

  constructor(
    private readonly decoder: MessageDecoder,
    private readonly options: DecodeOptions = {},
  ) {
    this.held = options.held;
  }

  push(chunk: Uint8Array): WatchEvent<T>[] {
    const { queue } = this;
    queue.push(chunk);
    const events: WatchEvent<T>[] = [];
    while (queue.length >= 4) {
      const size = ((queue.at(0) << 24) | (queue.at(1) << 16) | (queue.at(2) << 8) | queue.at(3)) >>> 0;
      if (size > maxFrameBytes) throw new WireFormatError(`watch frame of ${size} bytes: the stream is corrupt`);
      if (queue.length < 4 + size) break;
      queue.skip(4);
      const frame = queue.takeInPlace(size);
      events.push(this.event(frame, queue.takenFrom, queue.takenFrom + size));
    }
    return events;
  }

  end(): WatchEvent<T>[] {
    if (this.queue.length > 0) throw new WireFormatError(`watch stream ended inside a frame (${this.queue.length} bytes left)`);
    return [];
  }

  /** One metav1.WatchEvent, `frame[start, end)`: type (1), object (2, a RawExtension whose raw (1) is the enveloped object). */
  private event(frame: Uint8Array, start: number, end: number): WatchEvent<T> {
    const reader = new WireReader(frame, start, end);
    let type = "";
    // Where the enveloped object is in the frame; objectEnd -1 while there is none.
    let objectStart = 0;
    let objectEnd = -1;
    while (reader.pos < reader.end) {
      const tag = reader.uint32();
      if (tag === 0x0a) type = reader.string();
      else if (tag === 0x12) {
        const end = reader.delimitedEnd();
        while (reader.pos < end) {
          const inner = reader.uint32();
          if (inner === 0x0a) {
            objectEnd = reader.delimitedEnd();
            objectStart = reader.pos;
            reader.pos = objectEnd;
          } else reader.skip(inner & 7);
        }
      } else reader.skip(tag & 7);
    }
    if (!type || objectEnd < 0) throw new WireFormatError(`malformed watch event: ${type ? "no object" : "no type"}`);
    const { decoder } = this;
    // An ERROR event's Status is decoded whole; everything else as the informer keeps it.
    if (type === "ERROR") return { type, object: decodeEnveloped(decoder, frame, {}, objectStart, objectEnd) as Status };
    // The casts to T trust the server, as watch-decoder.ts trusts JSON.parse: it sends the resource the caller watches.
    const envelope = readEnvelope(decoder, frame, objectStart, objectEnd);
    const known = type === "ADDED" && this.held ? decoder.heldObject(envelope.message, frame, this.held, envelope.rawStart, envelope.rawEnd) : undefined;
    if (known !== undefined) return { type, object: known } as WatchEvent<T>;
    const { fields } = this.options;
    const decoded = decodeEnvelopeRead(decoder, frame, envelope, this.options);
    // What follows the initial events are changes: never a version held already.
    if (type === "BOOKMARK" && endsInitialEvents(decoded)) this.held = undefined;
    return { type, object: fields ? noteBuiltFrom(decoded, fields) : decoded } as unknown as WatchEvent<T>;
  }
}

function endsInitialEvents(bookmark: { metadata?: { annotations?: Record<string, string> } }): boolean {
  return bookmark.metadata?.annotations?.[initialEventsEndAnnotation] === "true";
}
