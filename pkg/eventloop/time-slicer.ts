// Long loops over big lists (decoding, queueing, handling 100,000 objects) run in bounded
// slices, so timers — lease renewals, health checks, watchdogs — are never held up for long.
//
//   const slicer = new TimeSlicer();
//   for (const item of items) { work(item); if (slicer.due()) await slicer.yield(); }
import { setImmediate } from "node:timers";

export interface TimeSlicerOptions {
  /**
   * How long a slice runs. A due timer waits for at most about two slices of every loop
   * slicing at once (Bun checks timers between rounds of immediates), so keep it short.
   * Default 5 ms.
   */
  sliceMs?: number;
  /**
   * Read the clock only every this many calls of due(): for loops over many cheap, uniform
   * items, where reading it each time would cost more than the work. Default 1.
   */
  callsPerCheck?: number;
}

export class TimeSlicer {
  private readonly sliceMs: number;
  private readonly callsPerCheck: number;
  private sliceStartedAt = performance.now();
  private calls = 0;

  constructor(options: TimeSlicerOptions = {}) {
    this.sliceMs = options.sliceMs ?? 5;
    this.callsPerCheck = options.callsPerCheck ?? 1;
  }

  /** True once the current slice has run for its budget: the loop should yield. */
  due(): boolean {
    if (++this.calls < this.callsPerCheck) return false;
    this.calls = 0;
    return performance.now() - this.sliceStartedAt >= this.sliceMs;
  }

  /** Lets due timers and I/O run, then starts a new slice. A yield costs microseconds. */
  async yield(): Promise<void> {
    // Not setTimeout(0): Bun makes it wait at least 1 ms and Deno 4 ms, idle time on every slice.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStartedAt = performance.now();
  }
}
