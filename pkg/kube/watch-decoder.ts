// Reads a watch response body: one JSON-encoded event per line (the API server's
// "application/json;stream=watch").
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject, WatchEvent } from "./objects.ts";

/** Events of a JSON watch body, read from its chunks; a line that is not an event throws a one-line Error. */
export async function* decodeWatchEvents<T extends KubeObject>(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  // A streaming list delivers its whole collection as events, often already buffered.
  const slicer = new TimeSlicer({ callsPerCheck: 32 });
  let buffered = "";
  for await (const chunk of chunks) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield parseEvent<T>(line);
      if (slicer.due()) await slicer.yield();
      newline = buffered.indexOf("\n");
    }
  }
  const rest = (buffered + decoder.decode()).trim();
  if (rest) yield parseEvent<T>(rest);
}

function parseEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  let event: WatchEvent<T>;
  try {
    event = JSON.parse(line) as WatchEvent<T>;
  } catch {
    throw new Error(`watch event is not JSON: ${excerpt(line)}`);
  }
  if (!event || typeof event.type !== "string" || typeof event.object !== "object" || event.object === null) {
    throw new Error(`malformed watch event: ${excerpt(line)}`);
  }
  return event;
}

function excerpt(line: string): string {
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
}
