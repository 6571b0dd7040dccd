// One informer as the status page shows it: is its cache filled, how big, how recent, and how
// often it had to list again or failed.
import { errorMessage } from "../errors/expected-error.ts";
import type { SharedIndexInformer } from "../informer/shared-informer.ts";
import type { ShardStatus } from "../informer/namespace-share.ts";
import { type HashRange, describeRanges, hashSpaceEnd } from "../sharding/hash-range.ts";
import type { InformerShardStatus, InformerStatus } from "./status-snapshot.ts";

export function informerStatus(informer: SharedIndexInformer): InformerStatus {
  const { lists, relists, watches, errors, handlerErrors } = informer.counters;
  const lastError = informer.lastListError;
  return {
    name: informer.name,
    synced: informer.hasSynced(),
    objects: informer.getIndexer().size,
    resourceVersion: informer.lastSyncResourceVersion,
    lists,
    relists,
    watches,
    errors,
    handlerErrors,
    lastError: lastError === undefined ? undefined : errorMessage(lastError),
    ...(informer.shardStatus && { shard: shardStatus(informer.shardStatus) }),
  };
}

function shardStatus(status: ShardStatus): InformerShardStatus {
  return {
    ranges: describeRanges(status.ranges),
    fraction: fractionOfHashSpace(status.ranges),
    syncedRanges: describeRanges(status.syncedRanges),
    serverFilters: status.serverFilters,
    segments: status.segments,
  };
}

/** How much of the hash space the ranges make: about the share of the namespaces they hold. */
function fractionOfHashSpace(ranges: readonly HashRange[]): number {
  const width = ranges.reduce((sum, range) => sum + (range.end - range.start), 0n);
  // Scaled to millionths before leaving bigint: the quotient fits a number exactly.
  return Number((width * 1_000_000n) / hashSpaceEnd) / 1_000_000;
}
