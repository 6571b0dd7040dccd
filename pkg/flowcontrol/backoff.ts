// Exponential backoff with jitter that forgets past failures after a quiet period, in the manner of
// client-go's NewExponentialBackoffManager. The reflector uses it between failed lists and watches.
import { type Clock, realClock } from "../clock/clock.ts";

export interface ExponentialBackoffOptions {
  /** First wait (before jitter). Default 800 ms. */
  initialMs?: number;
  /** Largest wait before jitter. Default 30 s. */
  maxMs?: number;
  /** A failure this long after the previous one starts again from `initialMs`. Default 2 min. */
  resetAfterMs?: number;
  /** Growth per consecutive failure. Default 2. */
  factor?: number;
  /** Each wait grows by up to `jitter` × itself, at random. Default 1.0. */
  jitter?: number;
  clock?: Clock;
  /** A number in [0, 1), like Math.random. */
  random?: () => number;
}

export class ExponentialBackoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly resetAfterMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private currentMs: number;
  private lastFailureAt: number | undefined;

  constructor(options: ExponentialBackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.resetAfterMs = options.resetAfterMs ?? 120_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.currentMs = this.initialMs;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.clock.monotonic();
    if (this.lastFailureAt === undefined || now - this.lastFailureAt > this.resetAfterMs) this.currentMs = this.initialMs;
    this.lastFailureAt = now;
    const base = this.currentMs;
    this.currentMs = Math.min(base * this.factor, this.maxMs);
    return base + this.random() * this.jitter * base;
  }

  /** Records a failure and sleeps for the resulting wait; rejects once `signal` aborts. */
  wait(signal?: AbortSignal): Promise<void> {
    return this.clock.sleep(this.next(), signal);
  }
}
