// A watch's events, read one at a time or in batches. An informer reads tens of thousands of
// events at start-up (a streaming list), and every await between the socket and the store costs
// each event a few promises; in batches (the events one chunk of the body completed) it costs
// them once per chunk. Everyone else iterates events one by one, as before.
import type { KubeObject, WatchEvent } from "./objects.ts";

/** The events of one watch: iterate them, or ask for `batches()` instead (one of the two, once). */
export interface WatchStream<T extends KubeObject> extends AsyncIterable<WatchEvent<T>> {
  /** The events in order, as many at a time as the body had ready; never an empty batch. */
  batches(): AsyncIterable<readonly WatchEvent<T>[]>;
}

/** A WatchStream over a source of batches; iterating it flattens them. */
export function watchStream<T extends KubeObject>(batches: () => AsyncIterable<readonly WatchEvent<T>[]>): WatchStream<T> {
  return {
    batches,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
  };
}

/** The batches of any watch: its own when it has them, else one event each (a ListerWatcher of a unit test, say). */
export function batchesOf<T extends KubeObject>(events: AsyncIterable<WatchEvent<T>>): AsyncIterable<readonly WatchEvent<T>[]> {
  if (isWatchStream(events)) return events.batches();
  return (async function* () {
    for await (const event of events) yield [event];
  })();
}

function isWatchStream<T extends KubeObject>(events: AsyncIterable<WatchEvent<T>>): events is WatchStream<T> {
  return typeof (events as Partial<WatchStream<T>>).batches === "function";
}
