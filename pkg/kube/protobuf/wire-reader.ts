// Reads the protobuf wire format from one byte array: varints, fixed-width numbers and
// length-delimited fields. Every read checks its bounds, so a cut or corrupt message throws a
// WireFormatError instead of reading past its end or looping.
import { Buffer } from "node:buffer";

/** The bytes are not the protobuf the reader expected: cut short, a bad varint, a bad length. */
export class WireFormatError extends Error {
  override readonly name = "WireFormatError";
}

/** Wire types (the low three bits of a field's tag). */
export const WireType = { varint: 0, fixed64: 1, lengthDelimited: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

const twoTo32 = 4294967296;

/** Node's Buffer (Bun's, Deno's) decodes a slice of UTF-8 several times faster than TextDecoder; utf8Slice is its fast path. */
type TextBuffer = Buffer & { utf8Slice?: (start: number, end: number) => string };

// One Buffer over the array strings were last read from: the readers of a chunk (its frames,
// each frame's envelope and object) share it, and a Buffer made per reader cost more than the
// strings it decoded. Keyed by the array itself: asking a typed array for its ArrayBuffer costs
// about as much as the Buffer.
let textSource: Uint8Array | undefined;
let textBuffer: TextBuffer | undefined;

function textOf(bytes: Uint8Array): TextBuffer {
  if (bytes !== textSource || textBuffer === undefined) {
    textSource = bytes;
    textBuffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as TextBuffer;
  }
  return textBuffer;
}

// Short strings repeat across the objects of a list (namespaces, label keys and values, phases,
// condition types and statuses). Kept objects share one copy of each, as JSON.parse's own string
// cache gives them. The cache is keyed by the bytes, so a string met again is not decoded at all:
// a slot per hash of a few of the bytes, holding the last string that hashed there.
const cachedBytes = 24;
const cacheSlots = 4096;
const recentStrings: (string | undefined)[] = new Array<string | undefined>(cacheSlots).fill(undefined);

export class WireReader {
  /** The next byte to read. */
  pos: number;
  private view: DataView | undefined;
  private textBuffer: TextBuffer | undefined;

  /** Reads `bytes[start, end)`. */
  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    /** Where the readable bytes end. */
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  /** An unsigned varint of at most 32 bits (tags, lengths, int32 and enum values read as uint32). */
  uint32(): number {
    const { bytes } = this;
    let pos = this.pos;
    let byte = bytes[pos++]!;
    let value = byte & 0x7f;
    if (byte < 0x80 && pos <= this.end) {
      this.pos = pos;
      return value;
    }
    let shift = 7;
    for (;;) {
      if (pos >= this.end) throw new WireFormatError(`varint cut short at byte ${this.pos}`);
      byte = bytes[pos++]!;
      if (shift < 28) value |= (byte & 0x7f) << shift;
      else if (shift === 28) value = (value >>> 0) + (byte & 0x0f) * 0x10000000;
      if (byte < 0x80) break;
      shift += 7;
      if (shift > 63) throw new WireFormatError(`varint longer than 10 bytes at byte ${this.pos}`);
    }
    this.pos = pos;
    return value >>> 0 === value ? value : value % twoTo32;
  }

  /** A varint as a signed 32-bit integer (negative int32 values take ten bytes on the wire). */
  int32(): number {
    return this.uint32() | 0;
  }

  /**
   * A varint as a signed 64-bit integer, rounded to the nearest double as JSON.parse rounds the
   * same number written in decimal (exact up to 2^53).
   */
  int64(): number {
    // Up to seven bytes (49 bits: times in seconds, generations, sizes) add up exactly in a double.
    const { bytes, end } = this;
    let pos = this.pos;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 7 && pos < end; i++) {
      const byte = bytes[pos++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        this.pos = pos;
        return value;
      }
      scale *= 128;
    }
    const { low, high } = this.varint64();
    return high >= 0x80000000 ? (high - twoTo32) * twoTo32 + low : high * twoTo32 + low;
  }

  /** A varint as an unsigned 64-bit integer, rounded like int64. */
  uint64(): number {
    const { low, high } = this.varint64();
    return high * twoTo32 + low;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  double(): number {
    this.need(8);
    const value = this.dataView().getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  float(): number {
    this.need(4);
    const value = this.dataView().getFloat32(this.pos, true);
    this.pos += 4;
    return value;
  }

  /** The length prefix of a length-delimited field; returns where the field ends. */
  delimitedEnd(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.end) throw new WireFormatError(`a field of ${length} bytes at byte ${this.pos} runs past the end (${this.end})`);
    return end;
  }

  /** A length-delimited field's bytes (a view, not a copy). */
  bytesField(): Uint8Array {
    const end = this.delimitedEnd();
    const value = this.bytes.subarray(this.pos, end);
    this.pos = end;
    return value;
  }

  /** A length-delimited UTF-8 string; a short one that was read recently is that same string. */
  string(): string {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    const length = end - start;
    if (length === 0) return "";
    if (length > cachedBytes) return this.text(start, end);
    // A few bytes pick the slot, not all of them: a name read once costs no walk over its bytes.
    const { bytes } = this;
    let hash = Math.imul(length ^ bytes[start]!, 0x01000193);
    hash = Math.imul(hash ^ bytes[end - 1]!, 0x01000193);
    hash = Math.imul(hash ^ bytes[end - 2 + (length === 1 ? 1 : 0)]!, 0x01000193);
    hash = Math.imul(hash ^ bytes[start + (length >> 1)]!, 0x01000193);
    const slot = (hash >>> 16) & (cacheSlots - 1);
    const known = recentStrings[slot];
    if (known !== undefined && known.length === length && sameAscii(known, bytes, start)) return known;
    const value = this.text(start, end);
    // Kept when as long as its bytes (no multi-byte character in it). A cached string is taken only
    // when each character equals its byte, which only ASCII can (an invalid byte became U+FFFD):
    // it is then these bytes' decoding.
    if (value.length === length) recentStrings[slot] = value;
    return value;
  }

  /**
   * A length-delimited UTF-8 string that is seldom the same twice (a name, a uid, a
   * resourceVersion): decoded without the cache's lookup, and not kept in it.
   */
  uniqueString(): string {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    return start === end ? "" : this.text(start, end);
  }

  /** Skips a field of wire type `wireType` whose tag was just read. */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.varint:
        this.varint64();
        return;
      case WireType.fixed64:
        this.need(8);
        this.pos += 8;
        return;
      case WireType.lengthDelimited:
        this.pos = this.delimitedEnd();
        return;
      case WireType.fixed32:
        this.need(4);
        this.pos += 4;
        return;
      default:
        // Groups are not used by any Kubernetes type; anything else is not protobuf.
        throw new WireFormatError(`unsupported wire type ${wireType} at byte ${this.pos}`);
    }
  }

  private varint64(): { low: number; high: number } {
    const { bytes } = this;
    let pos = this.pos;
    let low = 0;
    let high = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= this.end) throw new WireFormatError(`varint cut short at byte ${this.pos}`);
      if (shift > 63) throw new WireFormatError(`varint longer than 10 bytes at byte ${this.pos}`);
      const byte = bytes[pos++]!;
      const bits = byte & 0x7f;
      if (shift < 28) low |= bits << shift;
      else if (shift === 28) {
        low |= (bits & 0x0f) << 28;
        high |= bits >>> 4;
      } else high |= bits << (shift - 32);
      if (byte < 0x80) break;
    }
    this.pos = pos;
    return { low: low >>> 0, high: high >>> 0 };
  }

  /** `bytes[start, end)` decoded as UTF-8. */
  private text(start: number, end: number): string {
    const text = (this.textBuffer ??= textOf(this.bytes));
    return text.utf8Slice ? text.utf8Slice(start, end) : text.toString("utf8", start, end);
  }

  private need(count: number): void {
    if (this.pos + count > this.end) throw new WireFormatError(`${count} bytes needed at byte ${this.pos}, only ${this.end - this.pos} left`);
  }

  private dataView(): DataView {
    return (this.view ??= new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength));
  }
}

/** Whether `text` (as long as the bytes compared) is the ASCII in `bytes` from `start`. */
function sameAscii(text: string, bytes: Uint8Array, start: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}
