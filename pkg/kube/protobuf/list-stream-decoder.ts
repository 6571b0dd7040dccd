// Decodes a protobuf LIST body while it streams in. A list is the envelope's raw field holding
// a list message: its ListMeta (field 1), then one length-delimited field per item (field 2).
// The decoder walks those nested length prefixes and decodes each item once its last byte is
// here, so the list is never held as one buffer and decoding overlaps the transfer.
import { TimeSlicer } from "../../eventloop/time-slicer.ts";
import { noteBuiltFrom } from "../field-tree.ts";
import type { KubeObject, ObjectList } from "../objects.ts";
import { ByteQueue } from "./byte-queue.ts";
import { UnknownKindError, protobufMagic, readTypeMeta, startsWithMagic } from "./envelope.ts";
import type { DecodeOptions, MessageDecoder } from "./message-decoder.ts";
import { WireFormatError, WireReader, WireType } from "./wire-reader.ts";

const typeMetaTag = (1 << 3) | WireType.lengthDelimited;
const rawTag = (2 << 3) | WireType.lengthDelimited;
const listMetaTag = (1 << 3) | WireType.lengthDelimited;
const itemTag = (2 << 3) | WireType.lengthDelimited;

/** Reads a protobuf list body chunk by chunk; resolves with the whole list. Malformed input throws a WireFormatError. */
export async function decodeProtobufList<T extends KubeObject>(
  decoder: MessageDecoder,
  chunks: AsyncIterable<Uint8Array>,
  options: DecodeOptions = {},
): Promise<ObjectList<T>> {
  const reader = new ListReader<T>(decoder, options);
  const slicer = new TimeSlicer();
  for await (const chunk of chunks) {
    reader.append(chunk);
    while (reader.step()) if (slicer.due()) await slicer.yield();
  }
  return reader.finish();
}

class ListReader<T extends KubeObject> {
  private readonly queue = new ByteQueue();
  private magicChecked = false;
  private apiVersion = "";
  private kind = "";
  private listMessage: string | undefined;
  private itemMessage: string | undefined;
  /** Where the raw field ends (in bytes since the start), while inside it. */
  private rawEnd: number | undefined;
  private rawSeen = false;
  private metadata: Record<string, unknown> = {};
  /** The array holding the field wholeField consumed last. */
  private field: Uint8Array = new Uint8Array(0);
  private readonly items: T[] = [];

  constructor(
    private readonly decoder: MessageDecoder,
    private readonly options: DecodeOptions,
  ) {}

  append(chunk: Uint8Array): void {
    this.queue.push(chunk);
  }

  /** Consumes one field if it is all here; false when more bytes are needed. */
  step(): boolean {
    const { queue } = this;
    if (!this.magicChecked) {
      if (queue.length < protobufMagic.length) return false;
      const start = queue.takeInPlace(protobufMagic.length);
      if (!startsWithMagic(start, queue.takenFrom)) throw new WireFormatError("list response: not a Kubernetes protobuf body");
      this.magicChecked = true;
      return true;
    }
    if (this.rawEnd !== undefined && queue.consumed === this.rawEnd) {
      this.rawEnd = undefined;
      return true;
    }
    const tag = queue.peekVarint();
    if (tag === undefined) return false;
    if (this.rawEnd === undefined && tag.value === rawTag) {
      // The list message itself: step into it instead of waiting for all of it.
      const length = queue.peekVarint(tag.size);
      if (length === undefined) return false;
      if (this.listMessage === undefined) throw new WireFormatError("list response: the list came before its apiVersion and kind");
      queue.skip(tag.size + length.size);
      this.rawEnd = queue.consumed + length.value;
      this.rawSeen = true;
      return true;
    }
    const length = this.wholeField(tag.value, tag.size);
    if (length < 0) return false;
    if (this.rawEnd !== undefined && queue.consumed > this.rawEnd) throw new WireFormatError("list response: a field runs past the end of the list");
    const { field } = this;
    const start = queue.takenFrom;
    if (this.rawEnd === undefined) {
      if (tag.value === typeMetaTag) this.setType(field, start, start + length);
    } else if (tag.value === itemTag) {
      this.items.push(this.item(field, start, start + length));
    } else if (tag.value === listMetaTag) {
      this.metadata = this.decoder.decode("meta/v1.ListMeta", field, {}, start, start + length);
    }
    return true;
  }

  /** One item, `bytes[start, end)`: the caller's own copy when it holds this version (see DecodeOptions.held), else decoded. */
  private item(bytes: Uint8Array, start: number, end: number): T {
    const { held, fields } = this.options;
    const known = held && this.decoder.heldObject(this.itemMessage!, bytes, held, start, end);
    if (known !== undefined) return known as T;
    const item = this.decoder.decode(this.itemMessage!, bytes, this.options, start, end);
    return (fields ? noteBuiltFrom(item, fields) : item) as T;
  }

  finish(): ObjectList<T> {
    if (!this.magicChecked || !this.rawSeen || this.rawEnd !== undefined || this.queue.length > 0) {
      throw new WireFormatError("list response: the body ended before the list was complete");
    }
    return { apiVersion: this.apiVersion, kind: this.kind, metadata: this.metadata, items: this.items } as ObjectList<T>;
  }

  /**
   * Consumes the field whose tag (of `tagSize` bytes) is next, once all of it is here: its body
   * is then in `field` from the queue's takenFrom on, and its length is returned; -1 until then.
   */
  private wholeField(tag: number, tagSize: number): number {
    const { queue } = this;
    const wireType = tag & 7;
    if (wireType === WireType.lengthDelimited) {
      const length = queue.peekVarint(tagSize);
      if (length === undefined || queue.length < tagSize + length.size + length.value) return -1;
      queue.skip(tagSize + length.size);
      this.field = queue.takeInPlace(length.value);
      return length.value;
    }
    // Not expected in a list; skipped whole, as any unknown field.
    const size = wireType === WireType.varint ? queue.peekVarint(tagSize)?.size : wireType === WireType.fixed64 ? 8 : wireType === WireType.fixed32 ? 4 : -1;
    if (size === -1) throw new WireFormatError(`list response: unsupported wire type ${wireType}`);
    if (size === undefined || queue.length < tagSize + size) return -1;
    this.field = queue.takeInPlace(tagSize + size);
    return tagSize + size;
  }

  private setType(field: Uint8Array, start: number, end: number): void {
    const { apiVersion, kind } = readTypeMeta(new WireReader(field, start, end), end);
    const listMessage = this.decoder.messageOfKind(apiVersion, kind);
    const itemMessage = listMessage && this.decoder.fieldMessage(listMessage, 2);
    if (listMessage === undefined || itemMessage === undefined) throw new UnknownKindError(apiVersion, kind);
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.listMessage = listMessage;
    this.itemMessage = itemMessage;
  }
}
