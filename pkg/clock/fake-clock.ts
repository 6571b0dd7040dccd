// A clock that moves only when a test says so. Timers fire in due order during `advance`;
// `stepWall` moves the wall clock alone, as NTP or an operator would.
import { type Clock, type Timer, sleepOn } from "./clock.ts";

interface Pending {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class FakeClock implements Clock {
  /** Monotonic time; timers are due on it. */
  private current = 0;
  /** Wall clock minus monotonic time. */
  private wallOffset: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = 1_700_000_000_000) {
    this.wallOffset = start;
  }

  now(): number {
    return this.current + this.wallOffset;
  }

  monotonic(): number {
    return this.current;
  }

  /** Steps the wall clock by `ms` (negative: back) without moving monotonic time or firing timers. */
  stepWall(ms: number): void {
    this.wallOffset += ms;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const entry: Pending = { due: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Number of timers still waiting to fire. */
  get waiters(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /** Moves time forward by `ms` without firing any timer, as a process frozen (SIGSTOP) sees it when it resumes. */
  advanceWithoutTimers(ms: number): void {
    this.current += ms;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order; lets promise callbacks run in between. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.pending = this.pending.filter((p) => !p.cancelled);
      this.pending.sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = this.pending[0];
      if (!next || next.due > target) break;
      this.pending.shift();
      this.current = Math.max(this.current, next.due);
      next.fn();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
