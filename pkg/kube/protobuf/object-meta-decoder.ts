// meta/v1.ObjectMeta and its OwnerReferences decoded by code written for them, not by the schema
// interpreter: every object of every list and watch has an ObjectMeta, and a metadata-only
// informer decodes little else. The object built is the one the interpreter builds from the same
// bytes (fields in wire order, empty omitempty fields left out, an OwnerReference's absent strings
// as ""), with fixed property names instead of a lookup and a few flag tests per field. It serves
// only a schema whose two messages are the ones it was written for (see hasObjectMetaSchema).
import { readTimeJson } from "./time-field.ts";
import { WireFormatError, type WireReader, WireType } from "./wire-reader.ts";
import { FieldFlag, type FieldSchema, type WireSchema } from "./wire-schema.ts";

const { repeated, pointer, omitEmpty, omitZero, map } = FieldFlag;

const objectMetaMessage = "meta/v1.ObjectMeta";
const ownerReferenceMessage = "meta/v1.OwnerReference";

/** The schema entries this decoder follows, as schema.generated.ts has them. */
const objectMetaFields: readonly FieldSchema[] = [
  [1, "name", omitEmpty, "string"],
  [2, "generateName", omitEmpty, "string"],
  [3, "namespace", omitEmpty, "string"],
  [4, "selfLink", omitEmpty, "string"],
  [5, "uid", omitEmpty, "string"],
  [6, "resourceVersion", omitEmpty, "string"],
  [7, "generation", omitEmpty, "int64"],
  [8, "creationTimestamp", omitEmpty | omitZero, "Time"],
  [9, "deletionTimestamp", pointer | omitEmpty, "Time"],
  [10, "deletionGracePeriodSeconds", pointer | omitEmpty, "int64"],
  [11, "labels", map | omitEmpty, "string"],
  [12, "annotations", map | omitEmpty, "string"],
  [13, "ownerReferences", repeated | omitEmpty, ownerReferenceMessage],
  [14, "finalizers", repeated | omitEmpty, "string"],
  [17, "managedFields", repeated | omitEmpty, "meta/v1.ManagedFieldsEntry"],
];
const ownerReferenceFields: readonly FieldSchema[] = [
  [1, "kind", 0, "string"],
  [3, "name", 0, "string"],
  [4, "uid", 0, "string"],
  [5, "apiVersion", 0, "string"],
  [6, "controller", pointer | omitEmpty, "bool"],
  [7, "blockOwnerDeletion", pointer | omitEmpty, "bool"],
];

/** The message of ObjectMeta's managedFields entries, which this decoder leaves to the interpreter. */
export const managedFieldsEntryMessage = "meta/v1.ManagedFieldsEntry";

/** Whether the schema's ObjectMeta and OwnerReference are the ones this decoder was written for. */
export function hasObjectMetaSchema(schema: WireSchema): boolean {
  return sameFields(schema.messages[objectMetaMessage], objectMetaFields) && sameFields(schema.messages[ownerReferenceMessage], ownerReferenceFields);
}

/** Reads one length-delimited message the interpreter decodes (a ManagedFieldsEntry). */
export type NestedDecode = (reader: WireReader) => unknown;

/** The ObjectMeta of `reader` up to `end`; its managedFields left out, or each entry read by `managedFieldsEntry`. */
export function decodeObjectMeta(reader: WireReader, end: number, noManagedFields: boolean, managedFieldsEntry: NestedDecode): Record<string, unknown> {
  const out = emptyObjectMeta();
  // An omitempty string: left out when empty.
  let text: string;
  while (reader.pos < end) {
    const tag = reader.uint32();
    switch (tag) {
      case 0x0a:
        text = reader.uniqueString();
        if (text !== "") out.name = text;
        break;
      case 0x12:
        text = reader.uniqueString();
        if (text !== "") out.generateName = text;
        break;
      case 0x1a:
        text = reader.string();
        if (text !== "") out.namespace = text;
        break;
      case 0x22:
        text = reader.uniqueString();
        if (text !== "") out.selfLink = text;
        break;
      case 0x2a:
        text = reader.uniqueString();
        if (text !== "") out.uid = text;
        break;
      case 0x32:
        text = reader.uniqueString();
        if (text !== "") out.resourceVersion = text;
        break;
      case 0x38: {
        const generation = reader.int64();
        if (generation !== 0) out.generation = generation;
        break;
      }
      case 0x42: {
        // A zero time is left out (omitzero); deletionTimestamp is a pointer: written, null or not.
        const created = readTimeJson(reader, false);
        if (created !== null) out.creationTimestamp = created;
        break;
      }
      case 0x4a:
        out.deletionTimestamp = readTimeJson(reader, false);
        break;
      case 0x50:
        out.deletionGracePeriodSeconds = reader.int64();
        break;
      case 0x5a:
        readStringMapEntry((out.labels ??= {}), reader, "labels");
        break;
      case 0x62:
        readStringMapEntry((out.annotations ??= {}), reader, "annotations");
        break;
      case 0x6a:
        (out.ownerReferences ??= []).push(decodeOwnerReference(reader));
        break;
      case 0x72:
        (out.finalizers ??= []).push(reader.string());
        break;
      case (17 << 3) | WireType.lengthDelimited:
        if (noManagedFields) reader.skip(WireType.lengthDelimited);
        else (out.managedFields ??= []).push(managedFieldsEntry(reader));
        break;
      default:
        // managedFields is skipped whatever its wire type, as the interpreter skips it.
        if (noManagedFields && tag >>> 3 === 17) reader.skip(tag & 7);
        else skipUnknown(reader, tag, objectMetaMessage, objectMetaWireTypes);
    }
  }
  if (reader.pos !== end) throw new WireFormatError(`${objectMetaMessage}: a field runs past the end of the message`);
  return out;
}

/** What decodeObjectMeta builds: the JSON fields of an ObjectMeta, each set only when written. */
interface ObjectMetaJson {
  [field: string]: unknown;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Record<string, unknown>[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/**
 * A new object for decodeObjectMeta to fill. Not `{}` written there: JavaScriptCore sizes an object
 * literal for the properties the function around it sets, fifteen here, and an ObjectMeta has
 * five or six: 160 bytes each instead of 64, 4.6 MiB more for 50,000 cached ConfigMaps.
 */
function emptyObjectMeta(): ObjectMetaJson {
  return {};
}

/** One {1: key, 2: value} entry of a map of strings; a missing value is "". */
function readStringMapEntry(entries: Record<string, string>, reader: WireReader, field: string): void {
  const end = reader.delimitedEnd();
  let key = "";
  let value = "";
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === 0x0a) key = reader.string();
    else if (tag === 0x12) value = reader.string();
    else if (tag >>> 3 === 2) throw wrongWireType(`${objectMetaMessage}.${field}`, tag & 7, WireType.lengthDelimited);
    else reader.skip(tag & 7);
  }
  if (reader.pos !== end) throw new WireFormatError(`${objectMetaMessage}.${field}: a map entry runs past its end`);
  entries[key] = value;
}

/** One OwnerReference: its four strings are written even when empty or absent (no omitempty), the two pointers when present. */
function decodeOwnerReference(reader: WireReader): Record<string, unknown> {
  const end = reader.delimitedEnd();
  const out: Record<string, unknown> = {};
  // Bits of the strings seen: kind, name, uid, apiVersion.
  let seen = 0;
  while (reader.pos < end) {
    const tag = reader.uint32();
    switch (tag) {
      case 0x0a:
        out.kind = reader.string();
        seen |= 1;
        break;
      case 0x1a:
        out.name = reader.string();
        seen |= 2;
        break;
      case 0x22:
        out.uid = reader.string();
        seen |= 4;
        break;
      case 0x2a:
        out.apiVersion = reader.string();
        seen |= 8;
        break;
      case 0x30:
        out.controller = reader.bool();
        break;
      case 0x38:
        out.blockOwnerDeletion = reader.bool();
        break;
      default:
        skipUnknown(reader, tag, ownerReferenceMessage, ownerReferenceWireTypes);
    }
  }
  if (reader.pos !== end) throw new WireFormatError(`${ownerReferenceMessage}: a field runs past the end of the message`);
  // Absent ones come last, in the schema's order, as the interpreter appends them.
  if ((seen & 1) === 0) out.kind = "";
  if ((seen & 2) === 0) out.name = "";
  if ((seen & 4) === 0) out.uid = "";
  if ((seen & 8) === 0) out.apiVersion = "";
  return out;
}

/** Field number → [JSON name, wire type]: a known field in another wire type is an error, an unknown one is skipped. */
type WireTypes = ReadonlyMap<number, readonly [string, number]>;

const objectMetaWireTypes = wireTypesOf(objectMetaFields);
const ownerReferenceWireTypes = wireTypesOf(ownerReferenceFields);

function wireTypesOf(fields: readonly FieldSchema[]): WireTypes {
  const varints = new Set(["int64", "bool"]);
  return new Map(fields.map(([number, name, , type]) => [number, [name, varints.has(type) ? WireType.varint : WireType.lengthDelimited] as const]));
}

function skipUnknown(reader: WireReader, tag: number, message: string, known: WireTypes): void {
  const field = known.get(tag >>> 3);
  if (field !== undefined) throw wrongWireType(`${message}.${field[0]}`, tag & 7, field[1]);
  reader.skip(tag & 7);
}

function wrongWireType(where: string, actual: number, expected: number): WireFormatError {
  return new WireFormatError(`${where}: wire type ${actual}, expected ${expected}`);
}

function sameFields(actual: readonly FieldSchema[] | undefined, expected: readonly FieldSchema[]): boolean {
  return actual !== undefined && actual.length === expected.length && actual.every((field, i) => field.every((part, j) => part === expected[i]![j]));
}
