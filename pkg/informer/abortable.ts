// Helpers that make async iteration and waits respect AbortSignals even when the source does not.

/**
 * Yields from `source` until it ends or `signal` aborts. An abort ends the iteration at once,
 * even while a `next()` is pending on a stream that ignores its signal (a half-open connection).
 */
export async function* untilAborted<E>(source: AsyncIterable<E>, signal: AbortSignal): AsyncGenerator<E> {
  const iterator = source[Symbol.asyncIterator]();
  const aborted = new Promise<IteratorResult<E>>((resolve) => {
    const end = () => resolve({ done: true, value: undefined });
    if (signal.aborted) end();
    else signal.addEventListener("abort", end, { once: true });
  });
  try {
    for (;;) {
      const next = iterator.next();
      // A pending next() that rejects after the abort must not become an unhandled rejection.
      next.catch(() => undefined);
      const result = await Promise.race([next, aborted]);
      if (result.done) return;
      yield result.value;
    }
  } finally {
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
