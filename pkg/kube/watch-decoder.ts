// Reads a watch response body: one JSON-encoded event per line (the API server's
// "application/json;stream=watch"). Fed chunk by chunk; returns the events each chunk completes.
import type { KubeObject, WatchEvent } from "./objects.ts";

/** Turns the chunks of a watch body into events. A malformed event throws a one-line Error. */
export interface WatchDecoder<T extends KubeObject> {
  /** The events `chunk` completes, in order. */
  push(chunk: Uint8Array): WatchEvent<T>[];
  /** The events left at the end of the body; throws when it ended inside one. */
  end(): WatchEvent<T>[];
}

export class JsonWatchDecoder<T extends KubeObject> implements WatchDecoder<T> {
  private readonly text = new TextDecoder();
  private buffered = "";

  push(chunk: Uint8Array): WatchEvent<T>[] {
    this.buffered += this.text.decode(chunk, { stream: true });
    const events: WatchEvent<T>[] = [];
    let start = 0;
    let newline = this.buffered.indexOf("\n");
    while (newline >= 0) {
      const line = this.buffered.slice(start, newline).trim();
      if (line) events.push(parseEvent<T>(line));
      start = newline + 1;
      newline = this.buffered.indexOf("\n", start);
    }
    this.buffered = this.buffered.slice(start);
    return events;
  }

  end(): WatchEvent<T>[] {
    // A last line without its newline still counts.
    const rest = (this.buffered + this.text.decode()).trim();
    this.buffered = "";
    return rest ? [parseEvent<T>(rest)] : [];
  }
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
