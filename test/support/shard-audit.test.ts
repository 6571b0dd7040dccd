import { describe, expect, test } from "bun:test";
import { emptySlotTable, encodeSlotTable, slotTableAnnotation } from "../../pkg/shardelection/slot-table.ts";
import type { AuditEvent } from "./audit-log.ts";
import { ShardWriteCheck } from "./shard-audit.ts";

const ring = { namespace: "kube-system", name: "loom" };
const second = 1_000_000;

function at(seconds: number): Pick<AuditEvent, "receivedAtMicros" | "completedAtMicros"> {
  return { receivedAtMicros: seconds * second - 1000, completedAtMicros: seconds * second };
}

function memberCreated(user: string, lease: string, seconds: number): AuditEvent {
  return { verb: "create", user, resource: "leases", namespace: ring.namespace, name: lease, code: 201, ...at(seconds) };
}

/** The table giving every slot to `holder` (undefined: nobody). */
function tableWritten(user: string, holder: string | undefined, seconds: number, code = 200): AuditEvent {
  const { slots } = emptySlotTable();
  const annotations = { [slotTableAnnotation]: encodeSlotTable({ slots, holders: slots.map(() => holder) }) };
  return { verb: "patch", user, resource: "leases", namespace: ring.namespace, name: ring.name, code, annotations, ...at(seconds) };
}

function write(user: string, namespace: string | undefined, seconds: number, verb = "create"): AuditEvent {
  return { verb, user, resource: "pods", ...(namespace ? { namespace } : {}), code: 201, receivedAtMicros: seconds * second, completedAtMicros: seconds * second + 1000 };
}

function doubleActs(events: AuditEvent[]): string[] {
  const found: string[] = [];
  new ShardWriteCheck(ring, ["a", "b"], (evidence) => found.push(evidence)).consume(events, true);
  return found;
}

const members = [memberCreated("a", "loom-a1", 1), memberCreated("b", "loom-b1", 1)];

describe("ShardWriteCheck", () => {
  test("writes by the holder of the moment pass, across a handover, cluster-scoped ones included", () => {
    const events = [...members, tableWritten("a", "loom-a1", 2), write("a", "team-1", 3), write("a", undefined, 3), tableWritten("a", undefined, 4), tableWritten("b", "loom-b1", 5), write("b", "team-1", 6)];
    expect(doubleActs(events)).toEqual([]);
  });

  test("a write by the old holder after the handover, or before anyone held the slot, is a double act", () => {
    const late = doubleActs([...members, tableWritten("a", "loom-a1", 2), tableWritten("b", "loom-b1", 5), write("a", "team-1", 6)]);
    expect(late).toHaveLength(1);
    expect(late[0]).toContain("held by loom-b1 (b)");
    expect(doubleActs([...members, write("a", "team-1", 1.5), tableWritten("a", "loom-a1", 2)])).toHaveLength(1);
  });

  test("a failed table write changes nothing; reads, Events and other users' writes are not judged", () => {
    const events = [...members, tableWritten("a", "loom-a1", 2), tableWritten("b", "loom-b1", 3, 409), write("a", "team-1", 4), write("b", "team-1", 4, "get"), write("admin", "team-1", 4)];
    expect(doubleActs(events)).toEqual([]);
    expect(doubleActs([...members, { ...write("b", "team-1", 4), resource: "events" }])).toEqual([]);
  });

  test("a member answers for the Leases it created only: a slot held by another process's Lease is not its own", () => {
    const events = [...members, memberCreated("a", "loom-a2", 2), tableWritten("b", "loom-a2", 3), write("b", "team-1", 4)];
    expect(doubleActs(events)).toHaveLength(1);
  });

  test("writes wait until the log is 5 s past them, so a table version logged later still counts", () => {
    const found: string[] = [];
    const check = new ShardWriteCheck(ring, ["a", "b"], (evidence) => found.push(evidence));
    check.consume([...members, tableWritten("a", "loom-a1", 2), write("a", "team-1", 3)]);
    expect(check.writesChecked).toBe(0);
    check.consume([tableWritten("a", "loom-a1", 9)]);
    expect(check.writesChecked).toBe(1);
    expect(check.tableVersions).toBe(2);
    expect(found).toEqual([]);
  });
});
