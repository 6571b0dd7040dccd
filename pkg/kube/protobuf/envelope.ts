// The envelope around every protobuf body of the API server: the magic bytes "k8s\0", then a
// runtime.Unknown holding the object's apiVersion and kind (typeMeta, field 1) and the object's
// own message (raw, field 2).
import type { DecodeOptions, MessageDecoder } from "./message-decoder.ts";
import { WireFormatError, WireReader, WireType } from "./wire-reader.ts";

/** The four bytes every enveloped protobuf body starts with. */
export const protobufMagic = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

/** The body is protobuf the schema has no message for: another type, or a newer server's. */
export class UnknownKindError extends WireFormatError {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no protobuf schema for ${apiVersion ? `${apiVersion}, ` : ""}kind ${JSON.stringify(kind)}`);
  }
}

/** The Unknown's typeMeta, the schema's message for it, and where its raw bytes are. */
export interface Envelope {
  apiVersion: string;
  kind: string;
  message: string;
  rawStart: number;
  rawEnd: number;
}

/**
 * Reads the envelope of `bytes[start, end)` (magic included). Throws WireFormatError when it is
 * not one, UnknownKindError for a kind the schema lacks.
 */
export function readEnvelope(decoder: MessageDecoder, bytes: Uint8Array, start = 0, end = bytes.length): Envelope {
  if (!startsWithMagic(bytes, start, end)) throw new WireFormatError(`not a Kubernetes protobuf body: it starts with ${describeStart(bytes.subarray(start, end))}`);
  const reader = new WireReader(bytes, start + protobufMagic.length, end);
  let typeMeta = noTypeMeta;
  let rawStart = 0;
  let rawEnd = 0;
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | WireType.lengthDelimited)) typeMeta = repeatedTypeMeta(reader, reader.delimitedEnd());
    else if (tag === ((2 << 3) | WireType.lengthDelimited)) {
      rawEnd = reader.delimitedEnd();
      rawStart = reader.pos;
      reader.pos = rawEnd;
    } else reader.skip(tag & 7);
  }
  const { apiVersion, kind } = typeMeta;
  const message = decoder.messageOfKind(apiVersion, kind);
  if (message === undefined) throw new UnknownKindError(apiVersion, kind);
  return { apiVersion, kind, message, rawStart, rawEnd };
}

interface TypeMeta {
  readonly apiVersion: string;
  readonly kind: string;
}

const noTypeMeta: TypeMeta = { apiVersion: "", kind: "" };

/** apiVersion and kind of a runtime.TypeMeta message in `reader` up to `end`. */
export function readTypeMeta(reader: WireReader, end: number): TypeMeta {
  let apiVersion = "";
  let kind = "";
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === 0x0a) apiVersion = reader.string();
    else if (tag === 0x12) kind = reader.string();
    else reader.skip(tag & 7);
  }
  return { apiVersion, kind };
}

// The objects of a list or watch share one typeMeta: its bytes are compared with the last one's
// instead of decoded again.
let lastTypeMetaBytes = new Uint8Array(0);
let lastTypeMeta = noTypeMeta;

/** readTypeMeta, the same object as last time when the bytes are the same. */
function repeatedTypeMeta(reader: WireReader, end: number): TypeMeta {
  const { bytes, pos } = reader;
  if (end - pos === lastTypeMetaBytes.length && sameBytes(bytes, pos, lastTypeMetaBytes)) {
    reader.pos = end;
    return lastTypeMeta;
  }
  lastTypeMeta = readTypeMeta(reader, end);
  lastTypeMetaBytes = bytes.slice(pos, end);
  return lastTypeMeta;
}

function sameBytes(bytes: Uint8Array, start: number, other: Uint8Array): boolean {
  for (let i = 0; i < other.length; i++) if (bytes[start + i] !== other[i]) return false;
  return true;
}

/** Decodes the enveloped object in `bytes[start, end)`, with its apiVersion and kind set as the JSON form has them. */
export function decodeEnveloped(decoder: MessageDecoder, bytes: Uint8Array, options: DecodeOptions = {}, start = 0, end = bytes.length): Record<string, unknown> {
  return decodeEnvelopeRead(decoder, bytes, readEnvelope(decoder, bytes, start, end), options);
}

/** Decodes the object of an envelope read already. */
export function decodeEnvelopeRead(decoder: MessageDecoder, bytes: Uint8Array, { apiVersion, kind, message, rawStart, rawEnd }: Envelope, options: DecodeOptions = {}): Record<string, unknown> {
  // Built in place after its type: not copied into a second object to put apiVersion and kind first.
  return decoder.decode(message, bytes, options, rawStart, rawEnd, { apiVersion, kind });
}

export function startsWithMagic(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  return end - start >= 4 && bytes[start] === 0x6b && bytes[start + 1] === 0x38 && bytes[start + 2] === 0x73 && bytes[start + 3] === 0x00;
}

function describeStart(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, 40));
  return JSON.stringify(text);
}
