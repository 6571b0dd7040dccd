// The shard ring on /metrics: how many members are alive, how many slots the table has, how many
// this member holds, drains and caches ahead of a silent member's end, and the handovers it took part in, each labelled with the ring's name.
import type { Registry } from "prom-client";
import type { RingMemberStatus, RingObserver } from "../shardelection/ring-member.ts";
import { counter, gauge } from "./declare.ts";

/** Registers the shard_ring_* metrics; `status` is read at scrape time. */
export function shardRingMetrics(registry: Registry, ring: string, status: () => RingMemberStatus): RingObserver {
  gauge(registry, "shard_ring_members", "Members of the shard ring this process sees alive.", ["ring"], (g) =>
    g.set({ ring }, status().members.filter((m) => m.alive).length),
  );
  gauge(registry, "shard_ring_slots", "Slots in the shard ring's table: 256, more once slots crowded with namespaces were split.", ["ring"], (g) =>
    g.set({ ring }, status().slots),
  );
  gauge(registry, "shard_ring_slots_held", "Slots of the shard ring this process holds (of shard_ring_slots), draining ones included.", ["ring"], (g) =>
    g.set({ ring }, status().held),
  );
  gauge(registry, "shard_ring_slots_draining", "Slots this process is handing over: no new work starts in them.", ["ring"], (g) =>
    g.set({ ring }, status().draining),
  );
  gauge(registry, "shard_ring_slots_cached_ahead", "Slots this process caches, not holds, because a member went silent (no renewal seen for 2.5 retry periods): it would take them once that member is declared dead.", ["ring"], (g) =>
    g.set({ ring }, status().cachedAhead),
  );
  gauge(registry, "shard_ring_member_slots", "Slots each member of the shard ring holds, by 'member' Lease, as the slot table says.", ["ring", "member"], (g) => {
    g.reset();
    for (const member of status().members) g.set({ ring, member: member.name }, member.slots);
  });
  const handovers = counter(registry, "shard_ring_handovers_total", "Slots this process took or let go, by 'direction' (taken, released).", ["ring", "direction"]);
  const lost = counter(registry, "shard_ring_membership_lost_total", "Times this process stopped acting at once because its shard Lease was not renewed in time or was taken from it.", ["ring"]);
  return {
    slotsTaken: (count) => handovers.inc({ ring, direction: "taken" }, count),
    slotsReleased: (count) => handovers.inc({ ring, direction: "released" }, count),
    membershipLost: () => lost.inc({ ring }),
  };
}
