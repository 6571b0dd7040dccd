import { describe, expect, test } from "bun:test";
import { bytesOf, stringField, varint } from "../../../test/support/protobuf-wire.ts";
import { WireFormatError, WireReader } from "./wire-reader.ts";

/** Every length-delimited field of `bytes` (tags skipped), read with `read`. */
function readAll(bytes: Uint8Array, read: (reader: WireReader) => string): string[] {
  const reader = new WireReader(bytes);
  const out: string[] = [];
  while (reader.pos < reader.end) {
    reader.uint32();
    out.push(read(reader));
  }
  return out;
}

describe("WireReader", () => {
  test("a short string read again is the string decoded from its own bytes, ASCII or not, valid UTF-8 or not", () => {
    const texts = ["default", "é", "Ã©", "ünïcødé ✓", "default", "é", "défault", "ab", "ba", "", "ab"];
    const bytes = bytesOf(...texts.map((text) => stringField(1, text)), stringField(1, "x"));
    expect(readAll(bytes, (r) => r.string())).toEqual([...texts, "x"]);
    expect(readAll(bytes, (r) => r.uniqueString())).toEqual([...texts, "x"]);
    // An invalid byte decodes to U+FFFD, and the same length of ASCII is never mistaken for it.
    const invalid = bytesOf([0x0a, 1, 0xff], [0x0a, 1, 0x3f], [0x0a, 1, 0xff]);
    expect(readAll(invalid, (r) => r.string())).toEqual(["\ufffd", "?", "\ufffd"]);
  });

  test("int64: short varints, the seven-byte boundary, large and negative values", () => {
    const values = [0, 1, 127, 128, 1_764_274_493, 2 ** 49 - 1, 2 ** 49, 2 ** 53, -1, -1_764_274_493];
    const reader = new WireReader(bytesOf(...values.map((v) => varint(BigInt(v)))));
    expect(values.map(() => reader.int64())).toEqual(values);
    expect(() => new WireReader(new Uint8Array([0x80, 0x80])).int64()).toThrow(WireFormatError);
  });
});
