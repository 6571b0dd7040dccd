// Long loops over big lists (decoding, queueing, handling 100,000 objects) run in bounded
// slices, so timers — lease renewals, health checks, watchdogs — are never held up for long.
//
//   const slicer = new TimeSlicer();
//   for (const item of items) { work(item); if (slicer.due()) await slicer.yield(); }
import { setImmediate } from "node:timers";

/**
 * A due timer waits for at most about two slices of every loop slicing at once (Bun checks
 * timers between rounds of immediates), so slices are kept short; a yield costs microseconds.
 */
const defaultSliceMs = 5;

export class TimeSlicer {
  private sliceStartedAt = performance.now();

  constructor(private readonly sliceMs = defaultSliceMs) {}

  /** True once the current slice has run for its budget: the loop should yield. */
  due(): boolean {
    return performance.now() - this.sliceStartedAt >= this.sliceMs;
  }

  /** Lets due timers and I/O run, then starts a new slice. */
  async yield(): Promise<void> {
    // Not setTimeout(0): Bun makes it wait at least 1 ms and Deno 4 ms, idle time on every slice.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStartedAt = performance.now();
  }
}
