// Does the API server apply shardSelector? A server without the ShardedListAndWatch gate (off,
// or a release before 1.36) ignores the parameter and lists everything; one that applied it says
// so in the list's metadata.shardInfo. One small LIST tells.
import type { ListerWatcher } from "../kube/list-watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { Logger } from "../log/logger.ts";
import { hashSpaceEnd, shardSelector } from "../sharding/hash-range.ts";

/**
 * True when a LIST with a shardSelector came back saying it applied it. One request of one item:
 * not at resourceVersion "0", where the watch cache ignores the limit.
 */
export async function serverAppliesShardSelector(listerWatcher: ListerWatcher<KubeObject>, signal?: AbortSignal): Promise<boolean> {
  const everything = shardSelector("object.metadata.namespace", [{ start: 0n, end: hashSpaceEnd }]);
  const list = await listerWatcher.list({ limit: 1, shardSelector: everything }, signal);
  return Boolean(list.metadata?.shardInfo?.selector);
}

/** The one line a process logs about it. */
export function logShardFilterMode(logger: Logger, serverFilters: boolean): void {
  if (serverFilters) logger.info("the API server filters by shard");
  else logger.info("filtering by shard in this process: the API server ignores shardSelector (feature gate ShardedListAndWatch off or before 1.36)");
}
