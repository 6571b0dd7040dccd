// client-go's EventSourceObjectSpamFilter (tools/record/events_cache.go): one reporting source may write `burst`
// Events about one object, then one more per refill interval, so a controller stuck in a hot loop cannot flood
// the API server. Buckets live in an LRU, so forgetting a quiet object just gives it a full bucket again.
import type { Clock } from "../clock/clock.ts";
import { TokenBucket } from "../flowcontrol/token-bucket.ts";
import { type KubeEvent, referencedObject } from "./event.ts";

export interface SpamFilterOptions {
  burst: number;
  refillIntervalMs: number;
  maxTrackedObjects: number;
}

const defaultSpamFilterOptions: SpamFilterOptions = {
  burst: 25,
  refillIntervalMs: 5 * 60_000,
  maxTrackedObjects: 4096,
};

export class EventSpamFilter {
  /** Map iteration follows insertion order, so re-inserting on use makes the first key the least recently used. */
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly clock: Clock,
    private readonly options: SpamFilterOptions = defaultSpamFilterOptions,
  ) {}

  /** Takes a token from the bucket of the event's source and object; false means drop the event. */
  allows(event: KubeEvent): boolean {
    const key = spamKey(event);
    const bucket = this.buckets.get(key) ?? new TokenBucket(1000 / this.options.refillIntervalMs, this.options.burst, this.clock);
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.options.maxTrackedObjects) {
      const leastRecentlyUsed = this.buckets.keys().next().value;
      if (leastRecentlyUsed !== undefined) this.buckets.delete(leastRecentlyUsed);
    }
    return bucket.tryTake();
  }
}

function spamKey(event: KubeEvent): string {
  return JSON.stringify([event.reportingController, event.reportingInstance, referencedObject(event.regarding)]);
}
