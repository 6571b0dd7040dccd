// "No double acts" in a shard ring, judged from the API server's side: every write a member
// makes to an object must arrive while the member Lease its process created holds the slot of the
// object's namespace (the slot of "" for cluster-scoped objects), as the slot table stood at
// that moment. The table's every version is in the audit log, since each is a write of the
// ring's Lease logged with its body; a write that arrives after the table gave its namespace to
// another member, or before it gave it to this one, means two processes acted on one namespace.
import { decodeSlotTable, holderOfNamespace, legacySlotTableAnnotation, type SlotTable, slotTableAnnotation } from "../../pkg/shardelection/slot-table.ts";
import { type AuditEvent, formatMicros } from "./audit-log.ts";
import { insertInOrder, stateAt, type TimedState } from "./audit-timeline.ts";

interface TableVersion extends TimedState {
  table: SlotTable;
}

const writeVerbs = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** Audit events are logged in completion order; a write is judged once the log is this far past it. */
const settleMicros = 5_000_000;

export class ShardWriteCheck {
  /** Ordered by sinceMicros. */
  readonly #tables: TableVersion[] = [];
  /** Member Lease → the audit user of the process that created it. */
  readonly #memberUsers = new Map<string, string>();
  #pending: AuditEvent[] = [];
  #latestCompletedMicros = 0;
  #writesChecked = 0;

  constructor(
    /** Where the ring's Leases live and the ring's name (its table Lease's name). */
    private readonly ring: { namespace: string; name: string },
    /** The members' audit users; other users' writes (a test's own) are not judged. */
    private readonly memberUsers: readonly string[],
    /** Told of each write sent by a member that did not hold its namespace, with the evidence. */
    private readonly doubleAct: (evidence: string) => void,
  ) {}

  get writesChecked(): number {
    return this.#writesChecked;
  }

  /** Versions of the slot table written so far. */
  get tableVersions(): number {
    return this.#tables.length;
  }

  /** Takes new audit events; judges the writes the log has moved far enough past (all of them with `final`). */
  consume(events: readonly AuditEvent[], final = false): void {
    for (const event of events) {
      this.#latestCompletedMicros = Math.max(this.#latestCompletedMicros, event.completedAtMicros);
      if (event.resource === "leases") {
        if (event.namespace === this.ring.namespace) this.#recordLeaseWrite(event);
      } else if (writeVerbs.has(event.verb) && event.resource !== "events" && this.memberUsers.includes(event.user)) {
        this.#pending.push(event);
      }
    }
    const horizon = final ? Number.POSITIVE_INFINITY : this.#latestCompletedMicros - settleMicros;
    const ready = this.#pending.filter((write) => write.completedAtMicros <= horizon);
    this.#pending = this.#pending.filter((write) => write.completedAtMicros > horizon);
    for (const write of ready) this.#judge(write);
  }

  #recordLeaseWrite(event: AuditEvent): void {
    // Failed attempts (409 when the table moved on meanwhile) change nothing.
    if (event.code < 200 || event.code >= 300 || event.name === undefined) return;
    if (event.name !== this.ring.name) {
      if (event.verb === "create") this.#memberUsers.set(event.name, event.user);
      return;
    }
    const written = event.annotations?.[slotTableAnnotation] ?? event.annotations?.[legacySlotTableAnnotation];
    if ((event.verb !== "create" && event.verb !== "patch" && event.verb !== "update") || written === undefined) return;
    insertInOrder(this.#tables, { sinceMicros: event.completedAtMicros, table: decodeSlotTable(event.annotations) });
  }

  #judge(write: AuditEvent): void {
    this.#writesChecked++;
    const namespace = write.namespace ?? "";
    const table = stateAt(this.#tables, write.receivedAtMicros);
    const holder = table && holderOfNamespace(table.table, namespace);
    const holderUser = holder === undefined ? undefined : this.#memberUsers.get(holder);
    if (holderUser === write.user) return;
    const what = `${write.verb} ${write.resource}${write.subresource ? `/${write.subresource}` : ""} ${namespace}/${write.name ?? ""}`;
    const held = holder === undefined ? "held by nobody" : `held by ${holder} (${holderUser ?? "unknown user"})`;
    this.doubleAct(
      `${write.user} sent ${what} (HTTP ${write.code}) at ${formatMicros(write.receivedAtMicros)} while the namespace's slot was ${held}${table ? ` since ${formatMicros(table.sinceMicros)}` : ""}`,
    );
  }
}
