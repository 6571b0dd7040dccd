// How the soak deals faults of one family: at a seeded random pace, one at a time, each kind
// drawn from a shuffled deck that holds every kind once, so even a short run sees every kind.
import { realClock } from "../../pkg/clock/clock.ts";
import type { SeededRandom } from "./seeded-random.ts";

export class FaultPacer<Kind> {
  readonly #deck: Kind[] = [];
  /** Monotonic ms when the last fault ended (the system was whole again). */
  lastFaultEndedAt = performance.now();

  constructor(
    private readonly random: SeededRandom,
    /** Mean pause before each fault (jittered ±50 %). */
    private readonly meanIntervalMs: number,
    /** The kinds of a fresh deck. */
    private readonly kinds: () => Kind[],
  ) {}

  /** Deals faults to `inject` until `signal` aborts; the fault in progress is left to `inject` to finish. */
  async run(signal: AbortSignal, inject: (kind: Kind) => Promise<void>): Promise<void> {
    for (;;) {
      await realClock.sleep(this.random.jitter(this.meanIntervalMs), signal).catch(() => undefined);
      if (signal.aborted) return;
      await inject(this.#next());
      this.lastFaultEndedAt = performance.now();
    }
  }

  #next(): Kind {
    if (this.#deck.length === 0) {
      const left = this.kinds();
      while (left.length > 0) this.#deck.push(...left.splice(this.random.int(0, left.length - 1), 1));
    }
    return this.#deck.pop() as Kind;
  }
}
