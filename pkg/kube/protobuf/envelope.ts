// The envelope around every protobuf body of the API server: the magic bytes "k8s\0", then a
// runtime.Unknown holding the object's apiVersion and kind (typeMeta, field 1) and the object's
// own message (raw, field 2).
import type { HeldVersion } from "../list-watch.ts";
import type { KubeObject } from "../objects.ts";
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

/** The Unknown's typeMeta, and where its raw bytes are. */
export interface Envelope {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
}

/** Reads the envelope of `bytes` (magic included). Throws WireFormatError when it is not one. */
export function readEnvelope(bytes: Uint8Array): Envelope {
  if (!startsWithMagic(bytes)) throw new WireFormatError(`not a Kubernetes protobuf body: it starts with ${describeStart(bytes)}`);
  const reader = new WireReader(bytes, protobufMagic.length);
  const envelope: Envelope = { apiVersion: "", kind: "", rawStart: 0, rawEnd: 0 };
  while (reader.pos < reader.end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | WireType.lengthDelimited)) Object.assign(envelope, readTypeMeta(reader, reader.delimitedEnd()));
    else if (tag === ((2 << 3) | WireType.lengthDelimited)) {
      envelope.rawEnd = reader.delimitedEnd();
      envelope.rawStart = reader.pos;
      reader.pos = envelope.rawEnd;
    } else reader.skip(tag & 7);
  }
  return envelope;
}

/** apiVersion and kind of a runtime.TypeMeta message in `reader` up to `end`. */
export function readTypeMeta(reader: WireReader, end: number): { apiVersion: string; kind: string } {
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

/** Decodes an enveloped object, with its apiVersion and kind set as the JSON form has them. */
export function decodeEnveloped(decoder: MessageDecoder, bytes: Uint8Array, options: DecodeOptions = {}): Record<string, unknown> {
  const { apiVersion, kind, rawStart, rawEnd } = readEnvelope(bytes);
  const message = decoder.messageOfKind(apiVersion, kind);
  if (message === undefined) throw new UnknownKindError(apiVersion, kind);
  // Built in place after its type: not copied into a second object to put apiVersion and kind first.
  return decoder.decode(message, bytes, options, rawStart, rawEnd, { apiVersion, kind });
}

/** The object `held` gives for the enveloped object's metadata (see MessageDecoder.heldObject); undefined for none, or a kind the schema lacks. */
export function heldEnveloped(decoder: MessageDecoder, bytes: Uint8Array, held: HeldVersion): KubeObject | undefined {
  const { apiVersion, kind, rawStart, rawEnd } = readEnvelope(bytes);
  const message = decoder.messageOfKind(apiVersion, kind);
  return message === undefined ? undefined : decoder.heldObject(message, bytes, held, rawStart, rawEnd);
}

export function startsWithMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

function describeStart(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, 40));
  return JSON.stringify(text);
}
