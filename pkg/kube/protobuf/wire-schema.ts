// The shape of the generated Kubernetes wire schema (schema.generated.ts): for every message,
// how each protobuf field maps to the JSON the API server would have sent for the same object.
// The .proto files alone cannot say that (JSON names, omitempty, pointers and the types with
// their own JSON form live in the Go types), so the generator reads the Go types of k8s.io/api,
// and checks every field it emits against the module's generated.proto.

/** Wire scalars: the protobuf type, decoded to what encoding/json would have written. */
export type ScalarType = "string" | "bool" | "int32" | "int64" | "uint32" | "uint64" | "double" | "float" | "bytes";

/**
 * Messages whose JSON form is not their fields: metav1.Time (RFC 3339, seconds), metav1.MicroTime
 * (RFC 3339, microseconds), metav1.Duration (Go duration string), resource.Quantity (its string),
 * intstr.IntOrString (a number or a string), runtime.RawExtension and metav1.FieldsV1 (raw JSON).
 */
export type SpecialType = "Time" | "MicroTime" | "Duration" | "Quantity" | "IntOrString" | "RawExtension" | "FieldsV1";

/** Bits of FieldSchema's flags. */
export const FieldFlag = {
  /** A Go slice: the field repeats (packed or not). */
  repeated: 1,
  /** A Go pointer: absent on the wire means nil. */
  pointer: 2,
  /** `json:",omitempty"`. */
  omitEmpty: 4,
  /** `json:",inline"`: the message's fields go into the parent's JSON object. */
  inline: 8,
  /** `json:",omitzero"`. */
  omitZero: 16,
  /** A Go map with string keys: repeated entries {1: key, 2: value}; the type is the value's. */
  map: 32,
} as const;

/** [field number, JSON name, FieldFlag bits, type: a ScalarType, a SpecialType or a message name]. */
export type FieldSchema = readonly [number, string, number, string];

/** Everything the decoder knows about the Kubernetes types. */
export interface WireSchema {
  /** The k8s.io/api module version the schema was generated from, e.g. "v0.37.2". */
  version: string;
  /** Message name ("core/v1.Pod", "meta/v1.ObjectMeta") → its fields, by field number. */
  messages: Readonly<Record<string, readonly FieldSchema[]>>;
  /** "apiVersion/kind" ("v1/Pod", "apps/v1/ReplicaSetList", "meta.k8s.io/v1/PartialObjectMetadataList") → message name. */
  kinds: Readonly<Record<string, string>>;
}
