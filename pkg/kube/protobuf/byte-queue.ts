// The bytes of a response body that arrived but are not consumed yet, kept as the chunks they
// came in: taking a field copies only when it spans chunks.
import { WireFormatError } from "./wire-reader.ts";

export class ByteQueue {
  private chunks: Uint8Array[] = [];
  /** Offset of the first unconsumed byte in chunks[0]. */
  private head = 0;
  /** Unconsumed bytes in all. */
  length = 0;
  /** Bytes consumed since the start. */
  consumed = 0;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The byte `offset` bytes ahead. */
  at(offset: number): number {
    let index = this.head + offset;
    // Nearly always in the first chunk: no walk over the chunks.
    const first = this.chunks[0];
    if (first !== undefined && index < first.length) return first[index]!;
    for (const chunk of this.chunks) {
      if (index < chunk.length) return chunk[index]!;
      index -= chunk.length;
    }
    throw new RangeError("ByteQueue.at past the end");
  }

  /**
   * A varint `offset` bytes ahead: its value (up to 2^53) and size, or undefined while it is not
   * all here yet.
   */
  peekVarint(offset = 0): { value: number; size: number } | undefined {
    let value = 0;
    let scale = 1;
    for (let size = 1; size <= 10; size++) {
      if (offset + size > this.length) return undefined;
      const byte = this.at(offset + size - 1);
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return { value, size };
      scale *= 128;
    }
    throw new WireFormatError(`varint longer than 10 bytes at byte ${this.consumed + offset}`);
  }

  /** Where the bytes last taken start in the array takeInPlace returned. */
  takenFrom = 0;

  /**
   * Consumes the next `count` bytes and returns an array holding them from `takenFrom` on: the
   * chunk they lie in (no copy, and no view either, which costs more than decoding a short
   * field), or a copy of them from 0 when they span chunks.
   */
  takeInPlace(count: number): Uint8Array {
    if (count > this.length) throw new RangeError("ByteQueue.takeInPlace past the end");
    const first = this.chunks[0];
    let result: Uint8Array;
    if (first !== undefined && this.head + count <= first.length) {
      result = first;
      this.takenFrom = this.head;
    } else {
      result = new Uint8Array(count);
      let filled = 0;
      let index = 0;
      let start = this.head;
      while (filled < count) {
        const chunk = this.chunks[index++]!;
        const part = chunk.subarray(start, Math.min(chunk.length, start + count - filled));
        result.set(part, filled);
        filled += part.length;
        start = 0;
      }
      this.takenFrom = 0;
    }
    this.skip(count);
    return result;
  }

  /** Consumes `count` bytes. */
  skip(count: number): void {
    this.length -= count;
    this.consumed += count;
    let left = this.head + count;
    while (this.chunks.length > 0 && left >= this.chunks[0]!.length) {
      left -= this.chunks[0]!.length;
      this.chunks.shift();
    }
    this.head = left;
  }
}
