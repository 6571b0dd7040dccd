// How many response-body bytes the API clients of this process have read: the measure of the
// garbage reading makes (the chunks themselves, and what is decoded from them and dropped).

let read = 0;

/** Response-body bytes read so far, by every client of this process. */
export function bodyBytesRead(): number {
  return read;
}

/** Counts `count` more bytes read. */
export function countBodyBytes(count: number): void {
  read += count;
}
