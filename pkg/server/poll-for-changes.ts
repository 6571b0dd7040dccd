// Follows something that can change behind kube-loom's back (certificate files, the client CA
// the API server publishes) by reading it again now and then: a failed read is reported once per
// distinct reason and retried, a value that differs from the last one is handed on.
import { errorMessage } from "../errors/expected-error.ts";

export interface Poll {
  stop(): void;
}

export interface PollOptions<T> {
  read(): T | Promise<T>;
  /** The value already in use, so that reading it again is not a change. */
  initial: T;
  /** Gets each value that differs from the last; a throw is reported through `onError`, and the value is not offered again. */
  onChange(value: T): void;
  onError(err: unknown): void;
  /** Between reads once one has succeeded. */
  intervalMs: number;
  /** Between reads until one succeeds (default: intervalMs). */
  retryMs?: number;
  /** Before the first read (default: intervalMs). */
  firstReadMs?: number;
}

export function pollForChanges<T>(options: PollOptions<T>): Poll {
  const { intervalMs, retryMs = intervalMs } = options;
  let seen = options.initial;
  let readOnce = false;
  let lastReadError: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    // Never the reason the process stays alive.
    timer.unref?.();
  };
  const tick = async () => {
    let value: T;
    try {
      value = await options.read();
    } catch (err) {
      const message = errorMessage(err);
      if (message !== lastReadError) options.onError(err);
      lastReadError = message;
      return schedule(readOnce ? intervalMs : retryMs);
    }
    lastReadError = undefined;
    readOnce = true;
    if (value !== seen) {
      seen = value;
      try {
        options.onChange(value);
      } catch (err) {
        options.onError(err);
      }
    }
    schedule(intervalMs);
  };
  schedule(options.firstReadMs ?? intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
