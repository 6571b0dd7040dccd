// The ring member's state as the status page shows it: ranges written as the API server writes
// shard bounds, and the namespaces the process acts on among those it has objects of.
import { describeRange } from "../sharding/hash-range.ts";
import type { RingMemberStatus } from "../shardelection/ring-member.ts";
import type { ShardRingStatus } from "./status-snapshot.ts";

export function shardRingStatus(status: RingMemberStatus, knownNamespaces: readonly string[], holds: (namespace: string) => boolean): ShardRingStatus {
  return {
    ring: status.ring,
    member: status.member,
    members: status.members.map((m) => ({ ...m, self: m.name === status.member })),
    slots: status.slots,
    held: status.held,
    draining: status.draining,
    cachedAhead: status.cachedAhead,
    ranges: status.ranges.map(describeRange),
    namespaces: knownNamespaces.filter(holds).sort(),
    handovers: status.handovers,
  };
}
