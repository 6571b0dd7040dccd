// Time as a dependency, so queues, backoffs and leader election can be tested without waiting.
//
// Two readings: `now()` is the wall clock, for timestamps that end up in objects; `monotonic()`
// never jumps when NTP or an operator steps the wall clock, so every interval, deadline and
// expiry is measured on it (a stepped wall clock must neither expire a live lease nor stall a
// rate limiter).

/** A timer set with `Clock.setTimer`. */
export interface Timer {
  /** Stops the timer; its function does not run. Harmless after it ran. */
  cancel(): void;
}

/** A source of time and timers; the real clock by default, a fake one in tests. */
export interface Clock {
  /** Milliseconds since the epoch (wall clock): only for timestamps written into objects. */
  now(): number;
  /** Milliseconds from an arbitrary origin that only moves forward: for intervals and deadlines. */
  monotonic(): number;
  /** Runs `fn` after `ms` milliseconds unless cancelled. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days), so longer timers are chained.
const maxTimeoutMs = 2 ** 31 - 1;

export const realClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(ms, fn) {
    let handle: ReturnType<typeof setTimeout>;
    const arm = (remaining: number) => {
      handle =
        remaining > maxTimeoutMs
          ? setTimeout(() => arm(remaining - maxTimeoutMs), maxTimeoutMs)
          : setTimeout(fn, Math.max(0, remaining));
    };
    arm(ms);
    return { cancel: () => clearTimeout(handle) };
  },
  sleep: (ms, signal) => sleepOn(realClock, ms, signal),
};

/** `sleep` for any clock, built on its `setTimer`. */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
