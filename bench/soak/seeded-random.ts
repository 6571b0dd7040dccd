// Reproducible choices for the soak: every random decision the driver and the chaos loop make
// comes from a seeded generator (mulberry32), so a run can be repeated with its --seed. Timing
// on a busy machine still differs between runs; the sequence of decisions does not.

export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** An independent generator for one consumer, so one loop's pace cannot shift another's choices. */
  fork(salt: number): SeededRandom {
    return new SeededRandom(Math.imul(this.#state ^ salt, 0x9e3779b1) ^ salt);
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** One element, or undefined for an empty list. */
  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.next() * items.length)];
  }

  /** A key chosen with probability proportional to its weight (weights ≥ 0, not all 0). */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let point = this.next() * total;
    for (const [key, weight] of entries) {
      point -= weight;
      if (point < 0) return key;
    }
    const last = entries.at(-1);
    if (!last) throw new Error("weighted choice from no options");
    return last[0];
  }

  /** `meanMs` jittered uniformly by ±50%. */
  jitter(meanMs: number): number {
    return meanMs * (0.5 + this.next());
  }
}
