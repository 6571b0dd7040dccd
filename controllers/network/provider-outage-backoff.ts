// One backoff for the whole provider while it is unreachable. Instead of every Network retrying
// on its own (100 Networks, 100 retry streams), one reconcile at a time probes the provider,
// at growing intervals; the others wait ("parked") and are all requeued the moment a probe
// gets through. So an outage costs a bounded, logarithmic number of calls, and recovery needs
// no one's help.
import { type Clock, realClock } from "../../pkg/clock/clock.ts";

export interface ProviderOutageBackoffOptions {
  /** First interval between probes; doubles with every failed probe. */
  initialMs: number;
  maxMs: number;
  clock?: Clock;
  /** Told which keys waited when the provider answers again. */
  onRecovered(keys: string[]): void;
}

export type Admission =
  | { admitted: true }
  /** `message` is the error that started the outage. */
  | { admitted: false; retryAfterMs: number; message: string };

interface Outage {
  failures: number;
  retryAt: number;
  message: string;
  /** The key whose reconcile is probing the provider now. */
  probe: string | undefined;
}

export class ProviderOutageBackoff {
  private readonly clock: Clock;
  private outage: Outage | undefined;
  private readonly parked = new Set<string>();

  constructor(private readonly options: ProviderOutageBackoffOptions) {
    this.clock = options.clock ?? realClock;
  }

  get unavailable(): boolean {
    return this.outage !== undefined;
  }

  /** Whether `key` may call the provider now. During an outage, only one key at a time, once the interval is over. */
  admit(key: string): Admission {
    const outage = this.outage;
    if (!outage) return { admitted: true };
    const now = this.clock.monotonic();
    if (outage.probe === undefined && now >= outage.retryAt) {
      outage.probe = key;
      this.parked.delete(key);
      return { admitted: true };
    }
    this.parked.add(key);
    const retryAfterMs = outage.probe === undefined ? outage.retryAt - now : this.interval(outage.failures);
    return { admitted: false, retryAfterMs, message: outage.message };
  }

  /** The provider answered (success or a real error): the outage, if any, is over. */
  succeeded(): void {
    if (!this.outage) return;
    this.outage = undefined;
    const keys = [...this.parked];
    this.parked.clear();
    if (keys.length > 0) this.options.onRecovered(keys);
  }

  /** The provider could not be reached; returns how long `key` should wait. */
  failed(key: string, message: string): number {
    const now = this.clock.monotonic();
    const outage = this.outage;
    this.parked.add(key);
    // A call admitted before the outage began, failing now, is no new evidence.
    if (outage && outage.probe !== key) return Math.max(outage.retryAt - now, 0) || this.interval(outage.failures);
    const failures = (outage?.failures ?? 0) + 1;
    const interval = this.interval(failures);
    this.outage = { failures, retryAt: now + interval, message, probe: undefined };
    return interval;
  }

  /** A probe ended without reaching the provider at all (e.g. the reconcile was aborted): let another key probe. */
  release(key: string): void {
    if (this.outage?.probe === key) this.outage.probe = undefined;
  }

  /** The object is gone: stop waking it. */
  forget(key: string): void {
    this.parked.delete(key);
    this.release(key);
  }

  private interval(failures: number): number {
    return Math.min(this.options.initialMs * 2 ** (failures - 1), this.options.maxMs);
  }
}
