// Follows one HTTP/1.1 response as its bytes pass through a proxy, without changing them: where
// the headers end, the media type, and, in a chunked body (a watch's), where each chunk's data
// lies and where a new chunk may begin. A proxy uses it to cut a watch inside an event or to slip
// a chunk of its own between two of the server's.

/** Where, in one piece of the byte stream, a chunk may be inserted and where chunk data lies. */
export interface ChunkedPiece {
  /** Offsets at which the body is between two chunks (a chunk of the proxy's own fits there). */
  boundaries: number[];
  /** [start, end) of chunk data in the piece. */
  data: [number, number][];
}

type State = "headers" | "size" | "data" | "data-end" | "trailer" | "done";

export class ChunkedResponseReader {
  /** The Content-Type header, once the headers have passed. */
  contentType = "";
  /** The Content-Encoding header ("gzip": kube-apiserver compresses each event of a streaming list's watch on its own). */
  contentEncoding = "";
  #state: State = "headers";
  #line = "";
  #dataLeft = 0;
  #chunked = false;

  /** Whether everything read so far ends between two chunks of a chunked body: a chunk of the proxy's own fits now. */
  get betweenChunks(): boolean {
    return this.#state === "size" && this.#line === "";
  }

  /** Reads the next piece of the server's bytes. */
  read(piece: Uint8Array): ChunkedPiece {
    const result: ChunkedPiece = { boundaries: [], data: [] };
    let at = 0;
    while (at < piece.length && this.#state !== "done") {
      if (this.#state === "data") {
        const take = Math.min(this.#dataLeft, piece.length - at);
        result.data.push([at, at + take]);
        at += take;
        this.#dataLeft -= take;
        if (this.#dataLeft === 0) this.#state = "data-end";
        continue;
      }
      if (this.#state === "size" && this.#line === "") result.boundaries.push(at);
      const byte = piece[at++] ?? 0;
      if (byte !== 0x0a) {
        this.#line += String.fromCharCode(byte);
        continue;
      }
      const line = this.#line.replace(/\r$/, "");
      this.#line = "";
      this.#endLine(line);
    }
    if (this.#state === "size" && this.#line === "") result.boundaries.push(at);
    return result;
  }

  #endLine(line: string): void {
    switch (this.#state) {
      case "headers": {
        if (line !== "") {
          const colon = line.indexOf(":");
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim();
          if (name === "content-type") this.contentType = value;
          if (name === "content-encoding") this.contentEncoding = value;
          if (name === "transfer-encoding" && value.toLowerCase().includes("chunked")) this.#chunked = true;
          return;
        }
        // A body that is not chunked is not followed further.
        this.#state = this.#chunked ? "size" : "done";
        return;
      }
      case "size":
        this.#dataLeft = Number.parseInt(line.split(";")[0] ?? "", 16);
        this.#state = this.#dataLeft > 0 ? "data" : "trailer";
        return;
      case "data-end":
        this.#state = "size";
        return;
      case "trailer":
        if (line === "") this.#state = "done";
        return;
    }
  }
}

/** `data` as one chunk of a chunked body. */
export function asChunk(data: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);
}
