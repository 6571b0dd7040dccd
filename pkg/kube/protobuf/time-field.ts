// metav1.Time and metav1.MicroTime on the wire: a message of seconds (1) and nanos (2) since the
// Unix epoch, read into their JSON strings.
import { microTimeJson, timeJson } from "./json-forms.ts";
import type { WireReader } from "./wire-reader.ts";

/** The length-delimited time message at the reader, as JSON: RFC 3339 in seconds, or microseconds for a MicroTime; null for the zero time. */
export function readTimeJson(reader: WireReader, micro: boolean): string | null {
  const end = reader.delimitedEnd();
  let seconds = 0;
  let nanos = 0;
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === 0x08) seconds = reader.int64();
    else if (tag === 0x10) nanos = reader.int32();
    else reader.skip(tag & 7);
  }
  return micro ? microTimeJson(seconds, nanos) : timeJson(seconds, nanos);
}
