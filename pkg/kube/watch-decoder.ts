// Reads a watch response body: one JSON-encoded event per line (the API server's
// "application/json;stream=watch"). Only web streams are used, so it runs unchanged on Bun, Deno and Node.
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject, WatchEvent } from "./objects.ts";

export async function* decodeWatchEvents<T extends KubeObject>(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<WatchEvent<T>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // A streaming list delivers its whole collection as events, often already buffered.
  const slicer = new TimeSlicer({ callsPerCheck: 32 });
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
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
  } finally {
    // Leaving the loop early (break, abort, error) must close the connection.
    await reader.cancel().catch(() => undefined);
  }
}

function parseEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  const event = JSON.parse(line) as WatchEvent<T>;
  if (!event || typeof event.type !== "string" || typeof event.object !== "object") {
    throw new Error(`malformed watch event: ${line.slice(0, 200)}`);
  }
  return event;
}
