// client-go's rate limiters (util/workqueue/default_rate_limiters.go): each says how long to hold an item back
// before it is retried.
import { type Clock, realClock } from "../clock/clock.ts";
import { TokenBucket } from "../flowcontrol/token-bucket.ts";

/** Decides how long a failed item waits before it is retried (client-go's workqueue.TypedRateLimiter). */
export interface RateLimiter<T = string> {
  /** Milliseconds to wait before `item` is processed again; records a failure for it. */
  when(item: T): number;
  /** Clears the failure history of `item` (the item itself still has to be `done`). */
  forget(item: T): void;
  /** Failures recorded for `item` since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Per item: baseMs · 2^failures, capped at maxMs. */
export class ItemExponentialFailureRateLimiter<T = string> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  /** `baseMs`: the first retry's delay, doubled with each further failure of the item; `maxMs`: the longest delay. */
  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}

  when(item: T): number {
    const failures = this.failures.get(item) ?? 0;
    this.failures.set(item, failures + 1);
    // 2 ** n saturates at Infinity rather than wrapping around like Go's int64 nanoseconds, so the cap covers it.
    const backoffMs = this.baseMs * 2 ** failures;
    return backoffMs < this.maxMs ? backoffMs : this.maxMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** One token bucket shared by all items: bounds the overall retry rate, not any single item's. */
export class BucketRateLimiter<T = string> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  /** Retries per second overall (`qps`), after a first `burst` at once. `clock`: for tests, a fake one. */
  constructor(qps = 10, burst = 100, clock: Clock = realClock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of its limiters; every limiter sees every call. */
export class MaxOfRateLimiter<T = string> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  /** The limiters whose longest delay each retry waits. */
  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    // Every limiter must be asked (not just until the largest), so each records the failure or spends its token.
    return this.limiters.reduce((longest, limiter) => Math.max(longest, limiter.when(item)), 0);
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiters.reduce((most, limiter) => Math.max(most, limiter.numRequeues(item)), 0);
  }
}

/**
 * client-go's DefaultControllerRateLimiter: per-item backoff 5 ms … 1000 s, and 10 retries/s overall (burst 100).
 * Other delays are the same parts with other numbers, e.g. backoff from 1 s to 5 min:
 * `.rateLimiter(() => new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(1000, 300_000), new BucketRateLimiter(10, 100)))`.
 */
export function defaultControllerRateLimiter<T = string>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
