// A token bucket in the manner of golang.org/x/time/rate's Limiter: `qps` tokens per second, at most `burst` stored,
// starting full. Tokens can be reserved ahead, which puts the bucket into debt; every later reservation then lands
// exactly one interval after the previous one, which is what makes waiters first-come first-served.
import { type Clock, type Timer, realClock } from "../clock/clock.ts";

interface Waiter {
  /** When its token is due (on the monotonic clock). */
  dueAt: number;
  /** Order of its reservation among all reservations. */
  seq: number;
  resolve(): void;
  stopListening(): void;
}

export class TokenBucket {
  private tokens: number;
  /** When `tokens` was last brought up to date. */
  private updatedAt: number;
  private reservations = 0;
  /** Sequence number of the last `reserve()` caller: those act on their own, so their slots cannot be moved. */
  private lastFixedReservation = -1;
  /** Pending `take()` callers, in reservation (and so due-time) order. */
  private readonly waiters: Waiter[] = [];
  private wakeUp: Timer | undefined;

  /** `qps` ≤ 0 means unlimited. */
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (qps > 0 && !(burst >= 1)) throw new RangeError(`token bucket burst must be at least 1, got ${burst}`);
    this.tokens = burst;
    this.updatedAt = clock.monotonic();
  }

  private get unlimited(): boolean {
    return this.qps <= 0;
  }

  /** Milliseconds it takes to earn one token. */
  private get interval(): number {
    return 1000 / this.qps;
  }

  /** Takes a token if one is available right now; never waits and never goes into debt. */
  tryTake(): boolean {
    if (this.unlimited) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Takes a token now or in the future and returns the milliseconds until it is due (`Reservation.Delay()`). */
  reserve(): number {
    const { delay, seq } = this.reserveSlot();
    this.lastFixedReservation = seq;
    return delay;
  }

  /** Waits for a token. Callers are served in call order; one that aborts gives its token back. */
  take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { delay, seq } = this.reserveSlot();
    if (delay === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.withdraw(waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        dueAt: this.clock.monotonic() + delay,
        seq,
        resolve,
        stopListening: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      if (this.waiters.length === 1) this.scheduleWakeUp();
    });
  }

  private reserveSlot(): { delay: number; seq: number } {
    const seq = this.reservations++;
    if (this.unlimited) return { delay: 0, seq };
    this.refill();
    this.tokens -= 1;
    return { delay: this.tokens < 0 ? (-this.tokens * 1000) / this.qps : 0, seq };
  }

  private refill(): void {
    const now = this.clock.monotonic();
    // A clock that stepped back earns nothing rather than taking tokens away.
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
    this.updatedAt = now;
  }

  /**
   * Gives an aborted waiter's token back by moving every later waiter one interval earlier. If a `reserve()` caller
   * came after it, that slot is already promised and cannot move, so, as in x/time/rate, the token is not returned.
   */
  private withdraw(waiter: Waiter): void {
    const index = this.waiters.indexOf(waiter);
    if (index < 0) return;
    this.waiters.splice(index, 1);
    if (this.lastFixedReservation < waiter.seq) {
      this.refill();
      this.tokens += 1;
      for (const later of this.waiters.slice(index)) later.dueAt -= this.interval;
    }
    if (index === 0) this.scheduleWakeUp();
  }

  private scheduleWakeUp(): void {
    this.wakeUp?.cancel();
    this.wakeUp = undefined;
    const next = this.waiters[0];
    if (next) this.wakeUp = this.clock.setTimer(next.dueAt - this.clock.monotonic(), () => this.releaseDue());
  }

  private releaseDue(): void {
    const now = this.clock.monotonic();
    for (let head = this.waiters[0]; head && head.dueAt <= now; head = this.waiters[0]) {
      this.waiters.shift();
      head.stopListening();
      head.resolve();
    }
    this.scheduleWakeUp();
  }
}
