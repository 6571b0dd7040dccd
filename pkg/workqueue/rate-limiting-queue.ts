// client-go's rate-limiting queue (util/workqueue/rate_limiting_queue.go): a delaying queue whose retry delays come
// from a RateLimiter.
import { DelayingQueue } from "./delaying-queue.ts";
import type { AddOptions } from "./priority.ts";
import type { WorkQueueOptions } from "./queue.ts";
import type { RateLimiter } from "./rate-limiters.ts";

/**
 * A controller's queue (`Controller.queue`): a delaying queue whose retry delays come from a rate limiter, growing
 * with each failure of an item until it is `forget`-ten. `add` and `addAfter` are the ways to enqueue a key from a
 * handler; the controller's workers call `get`, `done`, `addRateLimited` and `forget` themselves.
 *
 * @hideconstructor
 */
export class RateLimitingQueue<T = string> extends DelayingQueue<T> {
  constructor(
    private readonly rateLimiter: RateLimiter<T>,
    options: WorkQueueOptions = {},
  ) {
    super(options);
  }

  /** Adds `item` after the delay the rate limiter assigns it; the priority follows `addAfter`'s rule. */
  addRateLimited(item: T, options: AddOptions = {}): void {
    this.addAfter(item, this.rateLimiter.when(item), options);
  }

  /** Stops tracking `item`'s failures; it still has to be `done`. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** How many failures of `item` the rate limiter counts since it was last forgotten. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
