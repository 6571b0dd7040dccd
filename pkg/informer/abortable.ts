// Helpers that make async iteration and waits respect AbortSignals even when the source does not.

/**
 * Yields from `source` until it ends or `signal` aborts. An abort ends the iteration at once,
 * even while a `next()` is pending on a stream that ignores its signal (a half-open connection).
 */
export async function* untilAborted<E>(source: AsyncIterable<E>, signal: AbortSignal): AsyncGenerator<E> {
  const iterator = source[Symbol.asyncIterator]();
  // One listener for the whole iteration, waking whichever wait is current. Not Promise.race
  // against one never-settling abort promise: each race leaves a reaction on it that holds the
  // value it was won with, so a watch kept every event it ever delivered until it ended.
  let wake: ((result: IteratorResult<E>) => void) | undefined;
  const onAbort = () => wake?.({ done: true, value: undefined });
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal.aborted) {
      const next = iterator.next();
      // A next() that rejects after the abort is handled here too: no unhandled rejection.
      const result = await new Promise<IteratorResult<E>>((resolve, reject) => {
        wake = resolve;
        next.then(resolve, reject);
      });
      wake = undefined;
      if (result.done) return;
      yield result.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    void iterator.return?.()?.catch(() => undefined);
  }
}

/** A controller that also aborts when `parent` does. */
export function childAbortController(parent: AbortSignal): AbortController {
  const child = new AbortController();
  const forward = () => child.abort(parent.reason);
  if (parent.aborted) forward();
  else {
    parent.addEventListener("abort", forward, { once: true });
    child.signal.addEventListener("abort", () => parent.removeEventListener("abort", forward), { once: true });
  }
  return child;
}
