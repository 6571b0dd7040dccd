// When a case's step has played out on both control planes. Quiet means, for `idleMs` without a
// break, on every side: no change to the watched resources, no item queued or in a worker's hands
// in any work queue, and no retry counted. Queues alone miss an event still on its way to the
// controller; the watch alone misses a controller still thinking (or about to retry after a
// short backoff); together they tell "settled" from "slow". A retry backed off for longer than
// the idle period would still come later: the idle period is chosen longer than the backoffs
// these controllers reach on the conflicts a case can cause.
import { isIdle, type QueueActivity } from "./queue-metrics.ts";

export interface QuietSource {
  readonly name: string;
  /** performance.now() of the last change the test's watch saw. */
  lastChangeAt(): number;
  queueActivity(): Promise<QueueActivity>;
}

export interface QuiescenceOptions {
  idleMs: number;
  timeoutMs: number;
  pollMs?: number;
}

export async function waitForQuiescence(sources: readonly QuietSource[], options: QuiescenceOptions): Promise<void> {
  const pollMs = options.pollMs ?? 200;
  const started = performance.now();
  let quietSince = started;
  const lastRetries = new Map<string, number>();
  let busy = "";
  for (;;) {
    await Bun.sleep(pollMs);
    const now = performance.now();
    const reports = await Promise.all(sources.map(async (source) => ({ source, activity: await source.queueActivity().catch(() => undefined) })));
    busy = "";
    for (const { source, activity } of reports) {
      const retriesMoved = activity !== undefined && lastRetries.has(source.name) && lastRetries.get(source.name) !== activity.retries;
      if (activity) lastRetries.set(source.name, activity.retries);
      if (activity === undefined) busy = `${source.name}'s metrics did not answer`;
      else if (!isIdle(activity)) busy = `${source.name} has ${activity.queued} queued, ${activity.inProgressSeconds.toFixed(2)} s in progress`;
      else if (retriesMoved) busy = `${source.name} retried an item`;
      else if (source.lastChangeAt() > quietSince) busy = `${source.name}'s objects changed`;
    }
    if (busy) quietSince = now;
    else if (now - quietSince >= options.idleMs) return;
    if (now - started > options.timeoutMs) throw new Error(`no quiescence within ${Math.round(options.timeoutMs / 1000)} s: ${busy}`);
  }
}
