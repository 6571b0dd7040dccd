// The benchmark's view of a shard ring, read from the API server as any observer would: the
// member Leases (labelled with the ring's name) and the slot table on the ring's own Lease. The
// ring has settled once no slot needs splitting and every slot is held by the member the plan
// every replica computes gives it (pkg/sharding/assignment.ts), over the namespaces that exist.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ringLabel, ringRoleLabel } from "../../pkg/shardelection/kube-ring-api.ts";
import { decodeSlotTable, emptySlotTable, holderOfNamespace, type SlotTable } from "../../pkg/shardelection/slot-table.ts";
import { planSlotOwners } from "../../pkg/sharding/assignment.ts";
import { namespaceHash } from "../../pkg/sharding/namespace-hash.ts";
import { maxSlotWeight, slotWeights, sortHashes, splitHeavySlots } from "../../pkg/sharding/slot-splits.ts";
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

  async table(): Promise<SlotTable> {
    const lease = await this.client.dynamic.resource<KubeObject>(resources.leases, leaseNamespace).get(this.ring).catch(() => undefined);
    return decodeSlotTable(lease?.metadata?.annotations);
  }

  /** The namespaces' hashes, "" (cluster-scoped objects) included, as the members weigh slots. */
  private async namespaceHashes(): Promise<bigint[]> {
    const namespaces = await this.client.dynamic.resource<KubeObject>(resources.namespaces).list();
    return sortHashes(new Set(["", ...namespaces.items.map((ns) => ns.metadata?.name ?? "")].map(namespaceHash)));
  }

  /** Waits until `count` members hold every slot as planned among them; returns the table then. */
  async settled(count: number, timeoutMs: number): Promise<SlotTable> {
    let last = { members: [] as string[], held: 0, misplaced: 0 };
    let table: SlotTable = emptySlotTable();
    await waitUntil(
      async () => {
        const [members, current, hashes] = await Promise.all([this.members(), this.table(), this.namespaceHashes()]);
        const { slots, holders } = current;
        const wanted = planSlotOwners({ slots, holders: holders.map((h) => (h !== undefined && members.includes(h) ? h : undefined)), members, weights: slotWeights(slots, hashes) });
        const toSplit = splitHeavySlots(slots, hashes, maxSlotWeight(hashes.length, members.length), () => true);
        table = current;
        last = { members, held: holders.filter((h) => h !== undefined).length, misplaced: holders.filter((h, slot) => h !== wanted[slot]).length + (toSplit ? 1 : 0) };
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
export function namespacesMoved(before: SlotTable, after: SlotTable, namespaces: readonly string[]): string[] {
  return namespaces.filter((namespace) => holderOfNamespace(before, namespace) !== holderOfNamespace(after, namespace));
}

/** The namespaces among `namespaces` that `member` holds in `table`. */
export function namespacesHeld(table: SlotTable, member: string, namespaces: readonly string[]): string[] {
  return namespaces.filter((namespace) => holderOfNamespace(table, namespace) === member);
}
