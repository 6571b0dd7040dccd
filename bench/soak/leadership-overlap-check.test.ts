import { describe, expect, test } from "bun:test";
import type { AuditEvent } from "../../test/support/audit-log.ts";
import { LeadershipOverlapCheck } from "./leadership-overlap-check.ts";
import { SoakTally } from "./soak-tally.ts";

const lease = { namespace: "kube-system", name: "kube-loom" };
const second = 1_000_000;

function leaseWrite(user: string, holderIdentity: string, atSeconds: number, code = 200): AuditEvent {
  const micros = atSeconds * second;
  return { verb: "update", user, resource: "leases", namespace: lease.namespace, name: lease.name, code, receivedAtMicros: micros - 1000, completedAtMicros: micros, holderIdentity };
}

function podCreate(user: string, atSeconds: number): AuditEvent {
  const micros = atSeconds * second;
  return { verb: "create", user, resource: "pods", namespace: "ns", code: 201, receivedAtMicros: micros, completedAtMicros: micros + 1000 };
}

function check(events: AuditEvent[]): SoakTally {
  const tally = new SoakTally();
  new LeadershipOverlapCheck(lease, ["a", "b"], tally).consume(events, true);
  return tally;
}

describe("LeadershipOverlapCheck", () => {
  test("writes by the holder of the moment pass, across a takeover", () => {
    const tally = check([leaseWrite("a", "a-1", 10), podCreate("a", 11), leaseWrite("b", "b-1", 30), podCreate("b", 31)]);
    expect(tally.violationTotal).toBe(0);
  });

  test("a write by the old holder after the takeover is two actors", () => {
    const tally = check([leaseWrite("a", "a-1", 10), leaseWrite("b", "b-1", 30), podCreate("a", 31)]);
    expect(tally.violationCounts.get("two-actors")).toBe(1);
    expect(tally.violations[0]?.evidence).toContain("held by b (b-1)");
  });

  test("a write after the writer released the Lease, or before anyone held it, is a violation", () => {
    expect(check([leaseWrite("a", "a-1", 10), leaseWrite("a", "", 20), podCreate("a", 21)]).violationTotal).toBe(1);
    expect(check([podCreate("a", 5), leaseWrite("a", "a-1", 10)]).violationTotal).toBe(1);
  });

  test("a failed acquisition (409) does not change the holder; other users and Lease writes are not judged", () => {
    const tally = check([leaseWrite("a", "a-1", 10), leaseWrite("b", "b-1", 12, 409), podCreate("a", 13), podCreate("admin", 14)]);
    expect(tally.violationTotal).toBe(0);
  });

  test("writes wait until the log is 5 s past them, so a Lease write logged later still counts", () => {
    const tally = new SoakTally();
    const overlapCheck = new LeadershipOverlapCheck(lease, ["a", "b"], tally);
    overlapCheck.consume([leaseWrite("a", "a-1", 10), podCreate("a", 11)]);
    expect(overlapCheck.writesChecked).toBe(0);
    overlapCheck.consume([leaseWrite("a", "a-1", 17)]);
    expect(overlapCheck.writesChecked).toBe(1);
    expect(overlapCheck.acquisitions).toBe(1);
  });
});
