// The reader a fault proxy follows a watch's answer with: chunk data and the places between two
// chunks are found wherever the network happened to split the bytes.
import { describe, expect, test } from "bun:test";
import { asChunk, ChunkedResponseReader } from "./chunked-response-reader.ts";

const encoder = new TextEncoder();
const headers = "HTTP/1.1 200 OK\r\nContent-Type: application/json;stream=watch\r\nTransfer-Encoding: chunked\r\n\r\n";
const answer = Buffer.concat([Buffer.from(headers), asChunk(encoder.encode("first\n")), asChunk(encoder.encode("second\n"))]);

/** The offsets, in the whole answer, of the boundaries and data the reader finds when the answer comes split at `splits`. */
function readSplit(splits: number[]): { boundaries: number[]; data: string } {
  const reader = new ChunkedResponseReader();
  const boundaries: number[] = [];
  let data = "";
  let from = 0;
  for (const to of [...splits, answer.length]) {
    const piece = answer.subarray(from, to);
    const found = reader.read(piece);
    boundaries.push(...found.boundaries.map((offset) => from + offset));
    for (const [start, end] of found.data) data += piece.subarray(start, end).toString();
    from = to;
  }
  expect(reader.contentType).toBe("application/json;stream=watch");
  return { boundaries: [...new Set(boundaries)], data };
}

describe("ChunkedResponseReader", () => {
  test("finds the chunks' data and the places between chunks, however the bytes are split", () => {
    const whole = readSplit([]);
    const firstChunkEnd = headers.length + asChunk(encoder.encode("first\n")).length;
    expect(whole.data).toBe("first\nsecond\n");
    expect(whole.boundaries).toEqual([headers.length, firstChunkEnd, answer.length]);
    for (const splits of [[5], [headers.length + 1], [headers.length + 4, firstChunkEnd - 1], [firstChunkEnd]]) expect(readSplit(splits)).toEqual(whole);
  });

  test("a body that is not chunked is not followed", () => {
    const reader = new ChunkedResponseReader();
    const found = reader.read(Buffer.from('HTTP/1.1 410 Gone\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'));
    expect(found).toEqual({ boundaries: [], data: [] });
  });
});
