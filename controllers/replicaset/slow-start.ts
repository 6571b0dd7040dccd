// kube-controller-manager's slowStartBatch: call `fn` `count` times in concurrent batches of
// 1, 2, 4, … and stop after the first batch with a failure. Hundreds of creations that would all
// fail the same way (a quota, an admission policy) cost one request, not hundreds, and one Event.

export const slowStartInitialBatchSize = 1;

export interface SlowStartResult {
  /** Calls that succeeded; the rest failed or were never made. */
  successes: number;
  /** The first failure, if a batch failed. */
  error?: unknown;
}

export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<SlowStartResult> {
  let remaining = count;
  let successes = 0;
  for (let batchSize = Math.min(remaining, initialBatchSize); batchSize > 0; batchSize = Math.min(2 * batchSize, remaining)) {
    const outcomes = await Promise.allSettled(Array.from({ length: batchSize }, async () => fn()));
    const failure = outcomes.find((outcome) => outcome.status === "rejected");
    successes += outcomes.filter((outcome) => outcome.status === "fulfilled").length;
    if (failure) return { successes, error: failure.reason };
    remaining -= batchSize;
  }
  return { successes };
}
