// The benchmark's view of a shard ring, read from the API server as any observer would: the
// member Leases (labelled with the ring's name) and the slot table on the ring's own Lease. The
// ring has settled once every slot is held by the member rendezvous hashing gives it among the
// members alive, the assignment every replica computes (pkg/sharding/assignment.ts).
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ringLabel, ringRoleLabel } from "../../pkg/shardelection/kube-ring-api.ts";
import { decodeSlotTable, type SlotHolders, slotTableAnnotation } from "../../pkg/shardelection/slot-table.ts";
import { assignSlots } from "../../pkg/sharding/assignment.ts";
import { namespaceSlot } from "../../pkg/sharding/slots.ts";
import { waitUntil } from "../../test/support/eventually.ts";

/** Where kube-loom keeps ring Leases by default (--leader-elect-resource-namespace). */
const leaseNamespace = "kube-system";

export class ShardRingView {
  constructor(
    private readonly client: KubeClient,
    readonly ring: string,
  ) {}

  /** The member Leases' names. */
  async members(): Promise<string[]> {
    const leases = await this.client.dynamic.resource<KubeObject>(resources.leases, leaseNamespace).list({ labelSelector: `${ringLabel}=${this.ring},${ringRoleLabel}=member` });
    return leases.items.map((lease) => lease.metadata?.name ?? "").sort();
  }

  async table(): Promise<SlotHolders> {
    const lease = await this.client.dynamic.resource<KubeObject>(resources.leases, leaseNamespace).get(this.ring).catch(() => undefined);
    return decodeSlotTable(lease?.metadata?.annotations?.[slotTableAnnotation]);
  }

  /** Waits until `count` members hold every slot as assigned among them; returns the table then. */
  async settled(count: number, timeoutMs: number): Promise<SlotHolders> {
    let last = { members: [] as string[], held: 0, misplaced: 0 };
    let table: SlotHolders = [];
    await waitUntil(
      async () => {
        const [members, holders] = await Promise.all([this.members(), this.table()]);
        const wanted = assignSlots(members);
        table = holders;
        last = { members, held: holders.filter((h) => h !== undefined).length, misplaced: holders.filter((h, slot) => h !== wanted[slot]).length };
        return members.length === count && last.misplaced === 0;
      },
      `shard ring ${this.ring} settled with ${count} members`,
      timeoutMs,
      100,
    ).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}; last seen: members ${last.members.join(", ")}, ${last.held} slots held, ${last.misplaced} not where assigned`);
    });
    return table;
  }
}

/** The namespaces among `namespaces` whose holder differs between two tables. */
export function namespacesMoved(before: SlotHolders, after: SlotHolders, namespaces: readonly string[]): string[] {
  return namespaces.filter((namespace) => before[namespaceSlot(namespace)] !== after[namespaceSlot(namespace)]);
}

/** The namespaces among `namespaces` that `member` holds in `table`. */
export function namespacesHeld(table: SlotHolders, member: string, namespaces: readonly string[]): string[] {
  return namespaces.filter((namespace) => table[namespaceSlot(namespace)] === member);
}
