// Decodes one Kubernetes protobuf message into the plain object the API server's JSON would have
// given for it: the same field names, the same omitted and null fields, times, quantities and
// durations as their JSON strings, int64s as numbers. Fields outside an optional projection are
// skipped on the wire and never built. The schema (schema.generated.ts) drives it; unknown fields
// (a newer server's) are skipped.
import { type FieldTree, pickFields } from "../field-tree.ts";
import type { HeldVersion } from "../list-watch.ts";
import type { KubeObject } from "../objects.ts";
import { bytesJson, durationJson, float32Json, rawJson } from "./json-forms.ts";
import { decodeObjectMeta, hasObjectMetaSchema, managedFieldsEntryMessage } from "./object-meta-decoder.ts";
import { readTimeJson } from "./time-field.ts";
import { WireFormatError, WireReader, WireType } from "./wire-reader.ts";
import { FieldFlag, type FieldSchema, type WireSchema } from "./wire-schema.ts";

/** How a message is decoded. */
export interface DecodeOptions {
  /** Only these fields (by JSON name, nested); absent: every field. */
  fields?: FieldTree | undefined;
  /** Leaves out metadata.managedFields, which no controller reads. */
  withoutManagedFields?: boolean;
  /**
   * During a list: the objects the caller holds already. An item it holds in the same
   * resourceVersion is that object, found from the item's metadata; the rest of the item is
   * skipped on the wire (see MessageDecoder.heldObject).
   */
  held?: HeldVersion | undefined;
}

const enum Kind {
  String,
  Bool,
  Int32,
  Int64,
  Uint32,
  Uint64,
  Double,
  Float,
  Bytes,
  Message,
  Time,
  MicroTime,
  Duration,
  Quantity,
  IntOrString,
  RawExtension,
  FieldsV1,
}

const kindByType: Readonly<Record<string, Kind>> = {
  string: Kind.String,
  bool: Kind.Bool,
  int32: Kind.Int32,
  int64: Kind.Int64,
  uint32: Kind.Uint32,
  uint64: Kind.Uint64,
  double: Kind.Double,
  float: Kind.Float,
  bytes: Kind.Bytes,
  Time: Kind.Time,
  MicroTime: Kind.MicroTime,
  Duration: Kind.Duration,
  Quantity: Kind.Quantity,
  IntOrString: Kind.IntOrString,
  RawExtension: Kind.RawExtension,
  FieldsV1: Kind.FieldsV1,
};

/** The wire type each kind arrives in (a repeated number may also come packed). */
function wireTypeOf(kind: Kind): number {
  switch (kind) {
    case Kind.Bool:
    case Kind.Int32:
    case Kind.Int64:
    case Kind.Uint32:
    case Kind.Uint64:
      return WireType.varint;
    case Kind.Double:
      return WireType.fixed64;
    case Kind.Float:
      return WireType.fixed32;
    default:
      return WireType.lengthDelimited;
  }
}

interface Field {
  readonly number: number;
  readonly name: string;
  readonly kind: Kind;
  readonly wireType: number;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly pointer: boolean;
  readonly inline: boolean;
  /** Left out of the JSON when empty (omitempty or omitzero). */
  readonly omitted: boolean;
  readonly omitZero: boolean;
  /** A present, non-repeated value is left out when empty (see omittedWhenEmpty). */
  readonly omitWhenEmpty: boolean;
  /** Its bit in the mask of always-written fields seen, or 0 when it has none. */
  readonly alwaysBit: number;
  /** The message type, for Kind.Message. */
  readonly messageName: string;
}

interface Message {
  readonly name: string;
  readonly byNumber: readonly (Field | undefined)[];
  /** Fields that appear in the JSON even when absent on the wire (as zero, null or an empty object). */
  readonly alwaysWritten: readonly Field[];
  /** A named Go slice sent as a message of one repeated field: its JSON is that field's array. */
  readonly sliceWrapper: Field | undefined;
  /** ObjectMeta's managedFields field number, to leave it out. */
  readonly managedFields: number | undefined;
  /** The number of the field holding the object's ObjectMeta, if it has one. */
  readonly objectMeta: number | undefined;
  /** Code written for this message (ObjectMeta), used when the whole message is decoded. */
  readonly written: WrittenDecode | undefined;
}

/** Decodes a whole message, up to `end`, by code written for it. */
type WrittenDecode = (reader: WireReader, end: number, noManagedFields: boolean) => Record<string, unknown>;

/** The tags of the ObjectMeta fields that tell which version of which object a message is. */
interface IdentityTags {
  readonly name: number;
  readonly namespace: number;
  readonly resourceVersion: number;
}

/** The decoder for one schema; messages are prepared the first time they are met. */
export class MessageDecoder {
  private readonly prepared = new Map<string, Message>();
  private identityTags: IdentityTags | undefined;
  private lastKind: { apiVersion: string; kind: string; message: string | undefined } | undefined;

  constructor(readonly schema: WireSchema) {}

  /** The message name of an apiVersion and kind, or undefined when the schema does not know them. */
  messageOfKind(apiVersion: string, kind: string): string | undefined {
    // Asked once per object of a list or watch, nearly always for the kind asked last.
    const last = this.lastKind;
    if (last !== undefined && last.apiVersion === apiVersion && last.kind === kind) return last.message;
    const message = this.schema.kinds[`${apiVersion}/${kind}`];
    this.lastKind = { apiVersion, kind, message };
    return message;
  }

  /**
   * Decodes `bytes[start, end)` as `messageName`, into `out` (which may hold fields of its own
   * already, such as apiVersion and kind). Throws WireFormatError for bytes that are not such a message.
   */
  decode(messageName: string, bytes: Uint8Array, options: DecodeOptions = {}, start = 0, end = bytes.length, out: Record<string, unknown> = {}): Record<string, unknown> {
    const reader = new WireReader(bytes, start, end);
    this.decodeInto(out, reader, end, this.message(messageName), options.fields, options.withoutManagedFields === true);
    return out;
  }

  /**
   * What `held` gives for the namespace, name and resourceVersion of the object in
   * `bytes[start, end)`, read from its ObjectMeta without building anything; undefined when it
   * gives nothing or the message has no ObjectMeta. A relist of unchanged objects then costs a
   * few short strings per object instead of a decoded copy that is garbage at once.
   */
  heldObject(messageName: string, bytes: Uint8Array, held: HeldVersion, start = 0, end = bytes.length): KubeObject | undefined {
    const metadata = this.message(messageName).objectMeta;
    if (metadata === undefined) return undefined;
    const metadataTag = (metadata << 3) | WireType.lengthDelimited;
    const tags = (this.identityTags ??= this.readIdentityTags());
    const reader = new WireReader(bytes, start, end);
    while (reader.pos < end) {
      const tag = reader.uint32();
      if (tag !== metadataTag) {
        reader.skip(tag & 7);
        continue;
      }
      const metadataEnd = reader.delimitedEnd();
      let name = "";
      let namespace = "";
      let resourceVersion = "";
      while (reader.pos < metadataEnd) {
        const inner = reader.uint32();
        if (inner === tags.name) name = reader.string();
        else if (inner === tags.namespace) namespace = reader.string();
        else if (inner === tags.resourceVersion) resourceVersion = reader.string();
        else reader.skip(inner & 7);
      }
      return name && resourceVersion ? held(namespace, name, resourceVersion) : undefined;
    }
    return undefined;
  }

  /** The message type of a field (e.g. the items of a list message), or undefined. */
  fieldMessage(messageName: string, fieldNumber: number): string | undefined {
    const field = this.message(messageName).byNumber[fieldNumber];
    return field?.kind === Kind.Message ? field.messageName : undefined;
  }

  private decodeInto(out: Record<string, unknown>, reader: WireReader, end: number, message: Message, tree: FieldTree | undefined, noManagedFields: boolean): void {
    let seen = 0;
    while (reader.pos < end) {
      const tag = reader.uint32();
      const number = tag >>> 3;
      const wireType = tag & 7;
      const field = message.byNumber[number];
      if (field === undefined || (noManagedFields && number === message.managedFields)) {
        reader.skip(wireType);
        continue;
      }
      if (field.inline) {
        checkWireType(field, wireType, WireType.lengthDelimited, message);
        const fieldEnd = reader.delimitedEnd();
        this.decodeInto(out, reader, fieldEnd, this.message(field.messageName), tree, noManagedFields);
        continue;
      }
      const subtree = tree === undefined ? true : tree.get(field.name);
      if (subtree === undefined) {
        reader.skip(wireType);
        continue;
      }
      const fields = subtree === true ? undefined : subtree;
      seen |= field.alwaysBit;
      if (field.map) {
        checkWireType(field, wireType, WireType.lengthDelimited, message);
        const entries = (out[field.name] ??= {}) as Record<string, unknown>;
        this.mapEntry(entries, reader, field, fields, noManagedFields, message);
      } else if (field.repeated) {
        const values = (out[field.name] ??= []) as unknown[];
        if (wireType === WireType.lengthDelimited && field.wireType !== WireType.lengthDelimited) {
          const packedEnd = reader.delimitedEnd();
          while (reader.pos < packedEnd) values.push(this.value(reader, field, fields, noManagedFields));
        } else {
          checkWireType(field, wireType, field.wireType, message);
          values.push(this.value(reader, field, fields, noManagedFields));
        }
      } else {
        checkWireType(field, wireType, field.wireType, message);
        const value = this.value(reader, field, fields, noManagedFields);
        if (!field.omitWhenEmpty || !isEmpty(value)) out[field.name] = value;
      }
    }
    if (reader.pos !== end) throw new WireFormatError(`${message.name}: a field runs past the end of the message`);
    for (const field of message.alwaysWritten) {
      if ((seen & field.alwaysBit) !== 0 || (field.alwaysBit === 0 && field.name in out) || (tree !== undefined && !tree.has(field.name))) continue;
      out[field.name] = this.absent(field, tree?.get(field.name), noManagedFields);
    }
  }

  /** What the JSON holds for a field that is not on the wire. */
  private absent(field: Field, subtree: FieldTree | true | undefined, noManagedFields: boolean): unknown {
    if (field.repeated || field.map || field.pointer) return null;
    switch (field.kind) {
      case Kind.String:
        return "";
      case Kind.Bool:
        return false;
      case Kind.Bytes:
        return null;
      case Kind.Message: {
        const out: Record<string, unknown> = {};
        const empty = new WireReader(new Uint8Array(0));
        this.decodeInto(out, empty, 0, this.message(field.messageName), subtree === true ? undefined : subtree, noManagedFields);
        return this.message(field.messageName).sliceWrapper ? null : out;
      }
      case Kind.Time:
      case Kind.MicroTime:
      case Kind.RawExtension:
      case Kind.FieldsV1:
        return null;
      case Kind.Duration:
        return "0s";
      case Kind.Quantity:
        return "0";
      default:
        return 0;
    }
  }

  private value(reader: WireReader, field: Field, fields: FieldTree | undefined, noManagedFields: boolean): unknown {
    switch (field.kind) {
      case Kind.String:
        return reader.string();
      case Kind.Bool:
        return reader.bool();
      case Kind.Int32:
        return reader.int32();
      case Kind.Int64:
        return reader.int64();
      case Kind.Uint32:
        return reader.uint32();
      case Kind.Uint64:
        return reader.uint64();
      case Kind.Double:
        return reader.double();
      case Kind.Float:
        return float32Json(reader.float());
      case Kind.Bytes:
        return bytesJson(reader.bytesField());
      case Kind.Message:
        return this.messageValue(reader, field.messageName, fields, noManagedFields);
      case Kind.Time:
      case Kind.MicroTime:
        return readTimeJson(reader, field.kind === Kind.MicroTime);
      case Kind.Duration: {
        const end = reader.delimitedEnd();
        let nanoseconds = 0;
        while (reader.pos < end) {
          const tag = reader.uint32();
          if (tag === 0x08) nanoseconds = reader.int64();
          else reader.skip(tag & 7);
        }
        return durationJson(nanoseconds);
      }
      case Kind.Quantity: {
        const end = reader.delimitedEnd();
        let text = "0";
        while (reader.pos < end) {
          const tag = reader.uint32();
          if (tag === 0x0a) text = reader.string();
          else reader.skip(tag & 7);
        }
        return text;
      }
      case Kind.IntOrString: {
        const end = reader.delimitedEnd();
        let type = 0;
        let intVal = 0;
        let strVal = "";
        while (reader.pos < end) {
          const tag = reader.uint32();
          if (tag === 0x08) type = reader.int64();
          else if (tag === 0x10) intVal = reader.int32();
          else if (tag === 0x1a) strVal = reader.string();
          else reader.skip(tag & 7);
        }
        return type === 1 ? strVal : intVal;
      }
      case Kind.RawExtension:
      case Kind.FieldsV1: {
        const end = reader.delimitedEnd();
        let raw: Uint8Array = new Uint8Array(0);
        while (reader.pos < end) {
          const tag = reader.uint32();
          if (tag === 0x0a) raw = reader.bytesField();
          else reader.skip(tag & 7);
        }
        return rawJson(raw, field.name);
      }
    }
  }

  /** A length-delimited message at the reader, as its JSON value. */
  private messageValue(reader: WireReader, messageName: string, fields: FieldTree | undefined, noManagedFields: boolean): unknown {
    const end = reader.delimitedEnd();
    const message = this.message(messageName);
    if (message.written !== undefined && fields === undefined) return message.written(reader, end, noManagedFields);
    const out: Record<string, unknown> = {};
    this.decodeInto(out, reader, end, message, fields, noManagedFields);
    return message.sliceWrapper ? (out[message.sliceWrapper.name] ?? null) : out;
  }

  private readonly managedFieldsEntry = (reader: WireReader): unknown => this.messageValue(reader, managedFieldsEntryMessage, undefined, false);

  /** The code written for a message, when there is some for it and the schema is the one it was written for. */
  private writtenDecode(name: string): WrittenDecode | undefined {
    if (name !== objectMetaMessage || !hasObjectMetaSchema(this.schema)) return undefined;
    return (reader, end, noManagedFields) => decodeObjectMeta(reader, end, noManagedFields, this.managedFieldsEntry);
  }

  private mapEntry(entries: Record<string, unknown>, reader: WireReader, field: Field, fields: FieldTree | undefined, noManagedFields: boolean, message: Message): void {
    const end = reader.delimitedEnd();
    let key = "";
    let value: unknown;
    let seen = false;
    while (reader.pos < end) {
      const tag = reader.uint32();
      if (tag === 0x0a) key = reader.string();
      else if (tag >>> 3 === 2) {
        checkWireType(field, tag & 7, field.wireType, message);
        seen = true;
        value = this.value(reader, field, undefined, noManagedFields);
      } else reader.skip(tag & 7);
    }
    if (reader.pos !== end) throw new WireFormatError(`${message.name}.${field.name}: a map entry runs past its end`);
    // An entry without a value holds the value type's zero.
    if (!seen) value = this.absent({ ...field, map: false }, undefined, noManagedFields);
    if (fields === undefined) {
      entries[key] = value;
      return;
    }
    // A projection through a map names its keys, as it names fields.
    const kept = fields.get(key);
    if (kept !== undefined) entries[key] = kept === true ? value : pickFields(value, kept);
  }

  private readIdentityTags(): IdentityTags {
    const { byNumber } = this.message(objectMetaMessage);
    // A field the schema lacks never matches: without a name or a resourceVersion nothing is held.
    const tagOf = (jsonName: string) => {
      const field = byNumber.find((f) => f?.name === jsonName);
      return field === undefined ? -1 : (field.number << 3) | WireType.lengthDelimited;
    };
    return { name: tagOf("name"), namespace: tagOf("namespace"), resourceVersion: tagOf("resourceVersion") };
  }

  private message(name: string): Message {
    let message = this.prepared.get(name);
    if (message === undefined) {
      const fields = this.schema.messages[name];
      if (fields === undefined) throw new WireFormatError(`no protobuf schema for ${name}`);
      message = prepare(name, fields, this.writtenDecode(name));
      this.prepared.set(name, message);
    }
    return message;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const objectMetaMessage = "meta/v1.ObjectMeta";

function prepare(name: string, schema: readonly FieldSchema[], written: WrittenDecode | undefined): Message {
  const byNumber: (Field | undefined)[] = [];
  const alwaysWritten: Field[] = [];
  let managedFields: number | undefined;
  let objectMeta: number | undefined;
  let sliceWrapper: Field | undefined;
  for (const [number, jsonName, flags, type] of schema) {
    const kind = kindByType[type] ?? Kind.Message;
    const field: Mutable<Field> = {
      number,
      name: jsonName,
      kind,
      wireType: wireTypeOf(kind),
      repeated: (flags & FieldFlag.repeated) !== 0,
      map: (flags & FieldFlag.map) !== 0,
      pointer: (flags & FieldFlag.pointer) !== 0,
      inline: (flags & FieldFlag.inline) !== 0,
      omitted: (flags & (FieldFlag.omitEmpty | FieldFlag.omitZero)) !== 0,
      omitZero: (flags & FieldFlag.omitZero) !== 0,
      messageName: kind === Kind.Message ? type : "",
      omitWhenEmpty: false,
      alwaysBit: 0,
    };
    field.omitWhenEmpty = omittedWhenEmpty(field);
    if (writtenWhenAbsent(field)) {
      // Up to 30 always-written fields are tracked in a bit mask; the rest (none today) by a lookup.
      if (alwaysWritten.length < 30) field.alwaysBit = 1 << alwaysWritten.length;
      alwaysWritten.push(field);
    }
    byNumber[number] = field;
    if (jsonName === "" && !field.inline) sliceWrapper = field;
    if (jsonName === "managedFields" && name === objectMetaMessage) managedFields = number;
    if (jsonName === "metadata" && type === objectMetaMessage) objectMeta = number;
  }
  return { name, byNumber, alwaysWritten, sliceWrapper, managedFields, objectMeta, written };
}

/**
 * Whether encoding/json writes a field whose value is missing on the wire. Slices, maps and
 * pointers are nil then, scalars zero: omitted under omitempty or omitzero. A struct is never
 * empty to omitempty; omitzero leaves out a zero one. Inline fields have no name of their own.
 */
function writtenWhenAbsent(field: Field): boolean {
  if (field.inline) return false;
  if (field.repeated || field.map || field.pointer || !isStruct(field.kind)) return !field.omitted;
  return !field.omitZero;
}

/** Whether a present, non-repeated field is left out of the JSON when its value is empty. */
function omittedWhenEmpty(field: Field): boolean {
  if (field.pointer) return false;
  return isStruct(field.kind) ? field.omitZero : field.omitted;
}

/** Kinds that are Go structs on the JSON side. */
function isStruct(kind: Kind): boolean {
  return kind >= Kind.Message;
}

/** Empty to omitempty (scalars, []byte) or zero to omitzero (a zero time is null, a zero struct {}). */
function isEmpty(value: unknown): boolean {
  if (value === "" || value === 0 || value === false || value === null) return true;
  return typeof value === "object" && Object.keys(value).length === 0;
}

function checkWireType(field: Field, actual: number, expected: number, message: Message): void {
  if (actual !== expected) throw new WireFormatError(`${message.name}.${field.name || field.number}: wire type ${actual}, expected ${expected}`);
}
