// "No two processes acting at once", judged from the API server's side: every write a replica
// makes (Lease and Event writes aside) must arrive while that replica holds the Lease, as the
// audit log records the Lease's holders. A write that arrives after another replica took the
// Lease over, or after the writer released it, means two processes were acting.
import { type AuditEvent, formatMicros } from "../../test/support/audit-log.ts";
import { insertInOrder, stateAt, type TimedState } from "../../test/support/audit-timeline.ts";
import type { SoakTally } from "./soak-tally.ts";

/** From the Lease write that started or renewed it. */
interface HolderTerm extends TimedState {
  /** The replica (audit user) holding the Lease; "" after a release. */
  user: string;
  identity: string;
}

/** Audit events are logged in completion order; a write is judged once the log is this far past it. */
const settleMicros = 5_000_000;

export class LeadershipOverlapCheck {
  /** Ordered by sinceMicros. */
  readonly #terms: HolderTerm[] = [];
  #pending: AuditEvent[] = [];
  #latestCompletedMicros = 0;
  #writesChecked = 0;
  #acquisitions = 0;

  constructor(
    private readonly lease: { namespace: string; name: string },
    /** The replicas' audit users; other users' writes (the workload's) are not judged. */
    private readonly replicaUsers: readonly string[],
    private readonly tally: SoakTally,
  ) {}

  get writesChecked(): number {
    return this.#writesChecked;
  }

  /** Times the Lease went to a new holder identity. */
  get acquisitions(): number {
    return this.#acquisitions;
  }

  /** Takes new audit events; judges the writes the log has moved far enough past (all of them with `final`). */
  consume(events: readonly AuditEvent[], final = false): void {
    for (const event of events) {
      this.#latestCompletedMicros = Math.max(this.#latestCompletedMicros, event.completedAtMicros);
      if (this.#isOurLease(event)) this.#recordLeaseWrite(event);
      else if (event.resource !== "leases" && this.replicaUsers.includes(event.user)) this.#pending.push(event);
    }
    const horizon = final ? Number.POSITIVE_INFINITY : this.#latestCompletedMicros - settleMicros;
    const ready = this.#pending.filter((write) => write.completedAtMicros <= horizon);
    this.#pending = this.#pending.filter((write) => write.completedAtMicros > horizon);
    for (const write of ready) this.#judge(write);
  }

  #isOurLease(event: AuditEvent): boolean {
    return event.resource === "leases" && event.namespace === this.lease.namespace && event.name === this.lease.name;
  }

  #recordLeaseWrite(event: AuditEvent): void {
    // Failed attempts (409 when another replica won) change nothing.
    if (event.code < 200 || event.code >= 300 || event.holderIdentity === undefined) return;
    const identity = event.holderIdentity;
    const term = { sinceMicros: event.completedAtMicros, user: identity === "" ? "" : event.user, identity };
    const previous = stateAt(this.#terms, term.sinceMicros);
    if (identity !== "" && previous?.identity !== identity) this.#acquisitions++;
    insertInOrder(this.#terms, term);
  }

  #judge(write: AuditEvent): void {
    this.#writesChecked++;
    const holder = stateAt(this.#terms, write.receivedAtMicros);
    if (holder?.user === write.user) return;
    const what = `${write.verb} ${write.resource}${write.subresource ? `/${write.subresource}` : ""} ${write.namespace ?? ""}/${write.name ?? ""}`;
    const held = holder ? (holder.user ? `held by ${holder.user} (${holder.identity})` : "released") : "not yet held";
    this.tally.violation(
      "two-actors",
      `${write.user} sent ${what} (HTTP ${write.code}) at ${formatMicros(write.receivedAtMicros)} while the Lease was ${held}${holder ? ` since ${formatMicros(holder.sinceMicros)}` : ""}`,
    );
  }
}
