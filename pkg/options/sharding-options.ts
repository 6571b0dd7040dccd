// --shard-ring: the ring's name becomes the prefix of every member Lease's name, so it must leave
// room for "-" and an 8-character suffix within a DNS label.
import { shardRingFlag } from "./core-flags.ts";
import type { FlagValues } from "./flag-values.ts";
import { UsageError } from "./usage-error.ts";

export interface ShardingOptions {
  /** The ring's name: its table Lease's, and the label value of its member Leases. */
  ring: string;
}

const ringName = /^[a-z0-9]([-a-z0-9]{0,52}[a-z0-9])?$/;

export function readShardingOptions(values: FlagValues): ShardingOptions | undefined {
  const ring = values.get(shardRingFlag);
  if (ring === "") return undefined;
  if (!ringName.test(ring)) {
    throw new UsageError(`--shard-ring "${ring}" is not a valid ring name: expected lowercase letters, digits and "-", starting and ending with a letter or digit, at most 54 characters`);
  }
  return { ring };
}
