// A controller acts on what its caches show: before the first list has arrived, "no Pods" only
// means "not listed yet", and a ReplicaSet controller that believed it would create Pods that
// already exist. So a controller waits for exactly the caches it reads, for as long as that
// takes (kube-controller-manager's WaitForNamedCacheSync has no timeout either), and says
// periodically what it is still waiting for and why.
import { type Clock, realClock } from "../clock/clock.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import { errorMessage } from "../errors/expected-error.ts";

/** What a wait needs of an informer; SharedIndexInformer has it. */
export interface CacheSyncSource {
  /** Names it in logs and /readyz, e.g. "pods.v1". */
  readonly name: string;
  /** True once the first list has reached the cache. */
  hasSynced(): boolean;
  /** The last list or watch failure since the cache was last filled. */
  readonly lastListError: unknown;
}

export interface WaitForCacheSyncOptions {
  logger?: Logger;
  clock?: Clock;
  /** How often the wait says what it still waits for. Default 30 s. */
  reportEveryMs?: number;
}

const pollMs = 100;

/** Resolves true once every source has synced, false if `signal` aborted first. Never gives up on its own. */
export async function waitForNamedCacheSync(
  controller: string,
  sources: readonly CacheSyncSource[],
  signal: AbortSignal,
  options: WaitForCacheSyncOptions = {},
): Promise<boolean> {
  const clock = options.clock ?? realClock;
  const logger = options.logger ?? silentLogger;
  const reportEveryMs = options.reportEveryMs ?? 30_000;
  let reportAt = clock.monotonic() + reportEveryMs;
  for (;;) {
    const waiting = unsyncedSources(sources);
    if (waiting.length === 0) return true;
    if (signal.aborted) return false;
    if (clock.monotonic() >= reportAt) {
      reportAt = clock.monotonic() + reportEveryMs;
      logger.warn({ controller, waitingFor: describeUnsynced(waiting) }, "waiting for informer caches to sync before reconciling");
    }
    await clock.sleep(pollMs, signal).catch(() => undefined);
  }
}

export function unsyncedSources(sources: readonly CacheSyncSource[]): CacheSyncSource[] {
  return sources.filter((source) => !source.hasSynced());
}

/** "pods.v1 (last error: GET /api/v1/pods: pods is forbidden …)", one entry per source. */
export function describeUnsynced(sources: readonly CacheSyncSource[]): string[] {
  return sources.map((source) => {
    const err = source.lastListError;
    if (err === undefined) return `${source.name} (not listed yet)`;
    return `${source.name} (last error: ${errorMessage(err)})`;
  });
}
