// Decodes a LIST response body while it streams in. The elements of the top-level "items"
// array are cut out of the bytes as they arrive and parsed a batch at a time; the rest of the
// envelope (kind, apiVersion, metadata) is parsed once at the end. A 50 MiB list then never
// sits in memory as one string, decoding overlaps the transfer, and it runs in bounded slices
// between which timers fire, instead of one long JSON.parse at the end.
//
// Streaming JSON tokenizers from npm build every value in JavaScript and are several times
// slower than the runtime's JSON.parse; here JSON.parse does all the parsing. Finding where
// items end takes two strategies, both on bytes (every structural character is ASCII, so a cut
// never splits a UTF-8 sequence):
// - exact: follow strings and nesting depth byte by byte, jumping over string contents with
//   indexOf. Always right, but on its own it costs about a third of a JSON.parse.
// - fast: the API server writes items compactly, each starting with the same key, so the
//   bytes `},{"metadata":` mark where one item ends and the next begins. In valid JSON those
//   characters can only be structure, never string contents; a match deeper inside an item
//   (say in a StatefulSet's volumeClaimTemplates) leaves the batch cut there with unclosed
//   brackets, JSON.parse rejects it, and the rest of the list is scanned exactly. The exact
//   scan also covers the envelope and learns the key from the first item.
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject, ObjectList } from "./objects.ts";

/** Reads a JSON list body chunk by chunk; resolves with the whole list. Malformed input throws a one-line Error. */
export async function decodeObjectList<T extends KubeObject>(chunks: AsyncIterable<Uint8Array>): Promise<ObjectList<T>> {
  const splitter = new ListSplitter<T>();
  const slicer = new TimeSlicer();
  for await (const chunk of chunks) {
    splitter.append(chunk);
    while (splitter.scan(slicer)) await slicer.yield();
  }
  return splitter.finish();
}

/** Items are parsed in batches of at most about this many bytes, each with one JSON.parse call. */
const batchBytes = 256 * 1024;

const quote = 34;
const backslash = 92;
const comma = 44;
const colon = 58;
const openBrace = 123;
const closeBrace = 125;
const openBracket = 91;
const closeBracket = 93;
const itemsKey = "items";

/**
 * Incremental scanner over `{ ..., "items": [ {...}, {...} ], ... }`. It works on each chunk
 * in place; the few bytes of an earlier chunk still needed (the start of an item, a key or the
 * envelope that goes on in this chunk) are kept as `carry`, at negative positions.
 */
class ListSplitter<T extends KubeObject> {
  private readonly decoder = new TextDecoder();
  private readonly items: T[] = [];
  /** The envelope's text with the items' contents left out, gathered around the items array. */
  private envelope = "";
  /** The chunk being scanned; every position below is an offset into it. */
  private buffer: Uint8Array = new Uint8Array(0);
  /** Bytes before `buffer` still needed: position -1 is its last byte. */
  private carry: Uint8Array = new Uint8Array(0);
  /** Where scanning resumes. */
  private pos = 0;
  private depth = 0;
  /** Set while the buffer ends inside a string that opened at `stringStart`. */
  private inString = false;
  private stringStart = 0;
  /** The last string seen directly inside the top-level object: the key of the value that follows. */
  private lastTopLevelString = "";
  private inItems = false;
  /** Start of the item being read; undefined between items. */
  private itemStart: number | undefined;
  /** Start and end of the complete items the exact scan found and has not parsed yet. */
  private batch: { start: number; end: number } | undefined;
  /** Start of envelope bytes not yet copied into `envelope`; undefined inside the items array and after the end. */
  private envelopeStart: number | undefined = 0;
  private ended = false;
  /** `},{"<first key>":`, learnt from the first item; undefined until then and after a wrong guess. */
  private boundary: Uint8Array | undefined;
  private fastPathFailed = false;

  append(chunk: Uint8Array): void {
    let keep = this.pos;
    if (this.inString) keep = Math.min(keep, this.stringStart);
    if (this.itemStart !== undefined) keep = Math.min(keep, this.itemStart);
    if (this.envelopeStart !== undefined) keep = Math.min(keep, this.envelopeStart);
    this.carry = this.bytes(keep, this.buffer.length);
    const shift = this.buffer.length;
    this.buffer = chunk;
    this.pos -= shift;
    this.stringStart -= shift;
    if (this.itemStart !== undefined) this.itemStart -= shift;
    if (this.envelopeStart !== undefined) this.envelopeStart -= shift;
  }

  /** Consumes what has been appended; returns true when it stopped early because the time slice is used up. */
  scan(slicer: TimeSlicer): boolean {
    for (;;) {
      if (this.boundary !== undefined && this.betweenItems() && this.cutFast(this.boundary)) {
        if (slicer.due()) return true;
        continue;
      }
      const outcome = this.scanExact(slicer);
      if (outcome === "due") return true;
      if (outcome === "end") return false;
    }
  }

  finish(): ObjectList<T> {
    if (!this.ended) throw new Error("list response: the body ended before the list was complete");
    const list = JSON.parse(this.envelope) as ObjectList<T>;
    // "items": null (an empty PartialObjectMetadataList) stays as the server sent it.
    if (Array.isArray(list.items)) list.items = this.items;
    return list;
  }

  private betweenItems(): boolean {
    return this.inItems && this.depth === 2 && this.itemStart === undefined && !this.inString;
  }

  /** Parses the items up to the last boundary within one batch; false when there is none or the guess was wrong. */
  private cutFast(boundary: Uint8Array): boolean {
    const bytes = this.buffer;
    let start = skipWhitespace(bytes, this.pos);
    if (bytes[start] === comma) start = skipWhitespace(bytes, start + 1);
    if (bytes[start] !== openBrace) return false;
    const cut = lastIndexOfBytes(bytes, boundary, start, Math.min(bytes.length - boundary.length, start + batchBytes));
    if (cut < 0) return false;
    let parsed: unknown;
    try {
      parsed = this.parseArray(start, cut + 1);
    } catch {
      // The match was inside an item: go on exactly. Truly malformed input fails there too.
      this.boundary = undefined;
      this.fastPathFailed = true;
      return false;
    }
    this.take(parsed);
    this.pos = cut + 1;
    return true;
  }

  /**
   * Follows strings and depth from `pos`. Stops at the end of the buffer ("end"), when the time
   * slice is used up ("due"), or after an item when the fast path may take over ("item").
   */
  private scanExact(slicer: TimeSlicer): "end" | "due" | "item" {
    const bytes = this.buffer;
    const length = bytes.length;
    let pos = this.pos;
    let depth = this.depth;
    let outcome: "end" | "due" | "item" = "end";
    if (this.inString) {
      const end = this.closingQuote(pos, this.stringStart);
      if (end < 0) {
        this.pos = length;
        return "end";
      }
      this.inString = false;
      if (depth === 1) this.lastTopLevelString = this.text(this.stringStart + 1, end);
      pos = end + 1;
    }
    while (pos < length) {
      const c = bytes[pos] as number;
      if (c === quote) {
        if (depth === 2 && this.inItems) throw notAnObject();
        const end = this.closingQuote(pos + 1, pos);
        if (end < 0) {
          this.inString = true;
          this.stringStart = pos;
          pos = length;
          break;
        }
        if (depth === 1) this.lastTopLevelString = this.text(pos + 1, end);
        pos = end + 1;
        continue;
      }
      if (c === openBrace || c === openBracket) {
        depth++;
        if (depth <= 3) this.opened(c, pos, depth);
      } else if (c === closeBrace || c === closeBracket) {
        depth--;
        if (depth === 2 && this.inItems) {
          const batch = this.itemClosed(pos);
          if (this.boundary !== undefined) outcome = "item";
          else if (batch.end - batch.start >= batchBytes && slicer.due()) outcome = "due";
          if (outcome !== "end") {
            pos++;
            break;
          }
        } else if (depth <= 1) {
          this.closedOuter(c, pos, depth);
        }
      } else if (depth === 2 && this.inItems) {
        if (c !== comma && !isWhitespace(c)) throw notAnObject();
      } else if (depth === 0 && !isWhitespace(c)) {
        throw new Error(this.ended ? "list response: unexpected data after the end of the list" : "list response: the body is not a JSON object");
      }
      pos++;
    }
    this.pos = pos;
    this.depth = depth;
    this.parseBatch();
    return outcome;
  }

  private opened(c: number, pos: number, depth: number): void {
    if (depth === 1) {
      if (this.ended) throw new Error("list response: unexpected data after the end of the list");
      if (c !== openBrace) throw new Error("list response: the body is not a JSON object");
    } else if (depth === 2) {
      if (c === openBracket && this.lastTopLevelString === itemsKey) {
        this.inItems = true;
        this.envelope += this.text(this.envelopeStart ?? 0, pos + 1);
        this.envelopeStart = undefined;
      } else if (this.inItems) {
        throw notAnObject();
      }
    } else if (this.inItems) {
      if (c !== openBrace) throw notAnObject();
      this.itemStart = pos;
    }
  }

  private itemClosed(pos: number): { start: number; end: number } {
    const start = this.itemStart ?? pos;
    if (this.items.length === 0 && this.batch === undefined && !this.fastPathFailed) this.boundary = boundaryAfter(this.bytes(start, pos + 1));
    this.itemStart = undefined;
    this.batch = { start: this.batch?.start ?? start, end: pos + 1 };
    return this.batch;
  }

  private closedOuter(c: number, pos: number, depth: number): void {
    if (depth < 0) throw new Error(`list response: unbalanced ${String.fromCharCode(c)}`);
    if (depth === 1 && this.inItems) {
      this.inItems = false;
      this.envelopeStart = pos;
    } else if (depth === 0) {
      this.envelope += this.text(this.envelopeStart ?? 0, pos + 1);
      this.envelopeStart = undefined;
      this.ended = true;
    }
  }

  /** Parses the complete items the exact scan found, with one JSON.parse call. */
  private parseBatch(): void {
    if (this.batch === undefined) return;
    this.take(this.parseArray(this.batch.start, this.batch.end));
    this.batch = undefined;
  }

  /** JSON.parse of `[` + bytes[start, end) + `]`, always on a flat string (a concatenated one parses markedly slower). */
  private parseArray(start: number, end: number): unknown {
    const bytes = this.buffer;
    if (start >= 1 && end < bytes.length) {
      // Borrow the separator bytes on either side for the brackets: no copy of the batch.
      const before = bytes[start - 1] as number;
      const after = bytes[end] as number;
      bytes[start - 1] = openBracket;
      bytes[end] = closeBracket;
      try {
        return JSON.parse(this.decoder.decode(bytes.subarray(start - 1, end + 1)));
      } finally {
        bytes[start - 1] = before;
        bytes[end] = after;
      }
    }
    const content = this.bytes(start, end);
    const framed = new Uint8Array(content.length + 2);
    framed[0] = openBracket;
    framed.set(content, 1);
    framed[framed.length - 1] = closeBracket;
    return JSON.parse(this.decoder.decode(framed));
  }

  private take(parsed: unknown): void {
    for (const item of parsed as unknown[]) {
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw notAnObject();
      this.items.push(item as T);
    }
  }

  /** Bytes [start, end), where negative positions are in `carry`: a view when they are all in one array. */
  private bytes(start: number, end: number): Uint8Array {
    if (start >= 0) return this.buffer.subarray(start, end);
    const fromCarry = this.carry.subarray(this.carry.length + start, this.carry.length + Math.min(end, 0));
    if (end <= 0) return fromCarry;
    const joined = new Uint8Array(fromCarry.length + end);
    joined.set(fromCarry);
    joined.set(this.buffer.subarray(0, end), fromCarry.length);
    return joined;
  }

  private byteAt(pos: number): number | undefined {
    return pos >= 0 ? this.buffer[pos] : this.carry[this.carry.length + pos];
  }

  private text(start: number, end: number): string {
    return this.decoder.decode(this.bytes(start, end));
  }

  /** Position of the quote closing the string that opened at `opening`, searching from `from`; -1 if not in this chunk. */
  private closingQuote(from: number, opening: number): number {
    let end = this.buffer.indexOf(quote, from);
    while (end >= 0 && this.byteAt(end - 1) === backslash && this.isEscaped(end, opening)) end = this.buffer.indexOf(quote, end + 1);
    return end;
  }

  /** Whether the quote at `at` is escaped: preceded by an odd run of backslashes inside the string opened at `opening`. */
  private isEscaped(at: number, opening: number): boolean {
    let i = at - 1;
    while (i > opening && this.byteAt(i) === backslash) i--;
    return (at - 1 - i) % 2 === 1;
  }
}

/**
 * The bytes between two items that start with the same key as `item`: `},{"metadata":`.
 * Undefined unless that key is a plain word: a match is then sure to be structure, as a word
 * cannot follow the quote that closes a string.
 */
function boundaryAfter(item: Uint8Array): Uint8Array | undefined {
  if (item[1] !== quote) return undefined;
  const keyEnd = item.indexOf(quote, 2);
  const key = new TextDecoder().decode(item.subarray(2, keyEnd));
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key) || item[keyEnd + 1] !== colon) return undefined;
  return new TextEncoder().encode(`},{"${key}":`);
}

/** The last offset in [from, upTo] where `pattern` starts, or -1. */
function lastIndexOfBytes(bytes: Uint8Array, pattern: Uint8Array, from: number, upTo: number): number {
  if (upTo < from) return -1;
  const first = pattern[0] as number;
  for (let at = bytes.lastIndexOf(first, upTo); at >= from; at = bytes.lastIndexOf(first, at - 1)) {
    let i = 1;
    while (i < pattern.length && bytes[at + i] === pattern[i]) i++;
    if (i === pattern.length) return at;
    if (at === 0) break;
  }
  return -1;
}

function skipWhitespace(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length && isWhitespace(bytes[i] as number)) i++;
  return i;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function notAnObject(): Error {
  return new Error("list response: an element of items is not an object");
}
