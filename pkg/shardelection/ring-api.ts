// The requests a ring member makes, as a seam: the member Leases (one per replica, labelled with
// the ring's name) and the slot table (one Lease per ring, named after it). Every write is a
// compare-and-swap on a resourceVersion, so a member that was declared dead cannot renew over
// the declaration, and the table never records two holders for one slot.
import type { SlotTable } from "./slot-table.ts";

export interface SlotTableVersion {
  table: SlotTable;
  resourceVersion: string;
}

/** A member's own Lease was deleted or written by someone else: its membership is over. */
export class MembershipLostError extends Error {
  constructor(lease: string) {
    super(`shard Lease ${lease} was removed or changed by another member`);
    this.name = "MembershipLostError";
  }
}

export interface RingApi {
  /** Creates this member's Lease; resolves with its resourceVersion. */
  createMember(name: string, signal?: AbortSignal): Promise<string>;
  /** Renews it over `resourceVersion`; throws MembershipLostError when it is gone or was changed. */
  renewMember(name: string, resourceVersion: string, signal?: AbortSignal): Promise<string>;
  /** Deletes a member's Lease only if it is still at `resourceVersion` (any version when undefined); false when it was not. */
  deleteMember(name: string, resourceVersion: string | undefined): Promise<boolean>;
  /** Whether the member's Lease exists, read from etcd rather than a cache. */
  memberExists(name: string): Promise<boolean>;
  /** The table as stored now (created empty when missing); throws SlotTableError when it cannot be read. */
  readTable(): Promise<SlotTableVersion>;
  /** Writes the table over `resourceVersion`; undefined when someone wrote it since. */
  writeTable(table: SlotTable, resourceVersion: string): Promise<string | undefined>;
}
