// Remembers the API server's answers to TokenReviews and SubjectAccessReviews for a short
// while, as the apiserver library's delegating authenticator and authorizer do: a scrape every
// few seconds costs no review, and a burst of requests with one token shares a single review.
// Failures (the API server unreachable) are remembered too, for a moment, so a flood of requests
// during an outage fails at once instead of each waiting for its own timeout.
import { type Clock, realClock } from "../clock/clock.ts";

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface AnswerCacheOptions<T> {
  /** How long an outcome stays; 0 = not kept. */
  ttlMs(outcome: Outcome<T>): number;
  /** Beyond this many entries the oldest go first, so random tokens cannot grow memory without bound. */
  maxEntries?: number;
  /** Ages are measured on its monotonic clock, so a wall-clock step neither expires nor extends an answer. */
  clock?: Clock;
}

const DEFAULT_MAX_ENTRIES = 8192;

export class AnswerCache<T> {
  private readonly entries = new Map<string, { expiresAt: number; outcome: Outcome<T> }>();
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly clock: Clock;
  private readonly maxEntries: number;

  constructor(private readonly options: AnswerCacheOptions<T>) {
    this.clock = options.clock ?? realClock;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  /** The remembered outcome for `key`, the one already being fetched, or a new one from `fetch`. */
  get(key: string, fetch: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.clock.monotonic()) return entry.outcome.ok ? Promise.resolve(entry.outcome.value) : Promise.reject(entry.outcome.error);
    if (entry) this.entries.delete(key);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const fetched = fetch().then(
      (value) => this.remember(key, { ok: true, value }),
      (error: unknown) => this.remember(key, { ok: false, error }),
    );
    this.inFlight.set(key, fetched);
    return fetched;
  }

  private remember(key: string, outcome: Outcome<T>): T {
    this.inFlight.delete(key);
    const ttl = this.options.ttlMs(outcome);
    if (ttl > 0) {
      this.entries.set(key, { expiresAt: this.clock.monotonic() + ttl, outcome });
      if (this.entries.size > this.maxEntries) this.evict();
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private evict(): void {
    const now = this.clock.monotonic();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Map iteration follows insertion order: the first keys are the oldest.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
