// Builds protobuf bytes in unit tests: each helper returns one field, tag included.

export function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

export function tag(field: number, wireType: number): number[] {
  return varint((field << 3) | wireType);
}

export function intField(field: number, value: number | bigint): number[] {
  return [...tag(field, 0), ...varint(value)];
}

export function bytesField(field: number, bytes: ArrayLike<number>): number[] {
  return [...tag(field, 2), ...varint(bytes.length), ...Array.from(bytes)];
}

export function stringField(field: number, text: string): number[] {
  return bytesField(field, new TextEncoder().encode(text));
}

export function messageField(field: number, ...parts: number[][]): number[] {
  return bytesField(field, parts.flat());
}

export function doubleField(field: number, value: number): number[] {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value, true);
  return [...tag(field, 1), ...bytes];
}

/** "k8s\0" + runtime.Unknown{typeMeta, raw}. */
export function enveloped(apiVersion: string, kind: string, raw: number[]): Uint8Array<ArrayBuffer> {
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...messageField(1, stringField(1, apiVersion), stringField(2, kind)), ...bytesField(2, raw)]);
}

export function bytesOf(...parts: number[][]): Uint8Array {
  return new Uint8Array(parts.flat());
}
