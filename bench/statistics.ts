// Benchmarks run each figure several times, interleaved with their peers, and report the median:
// on a shared 2-core machine one slow run says more about the neighbours than about the code.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** `value / reference` as the tables print it, e.g. "1.07×"; empty when there is no reference. */
export function ratio(value: number, reference: number | undefined, digits = 2): string {
  return reference === undefined || !Number.isFinite(reference) || reference === 0 ? "" : `${(value / reference).toFixed(digits)}×`;
}

/** Every sample of each figure, by who it measured (a system, or "limit"), in the order taken. */
export class Samples<Who extends string> {
  readonly #values = new Map<string, number[]>();

  record(figure: string, who: Who, value: number): void {
    const key = `${figure} ${who}`;
    this.#values.set(key, [...(this.#values.get(key) ?? []), value]);
  }

  of(figure: string, who: Who): number[] {
    return this.#values.get(`${figure} ${who}`) ?? [];
  }
}
