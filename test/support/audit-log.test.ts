import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "bun:test";
import { AuditLogReader, formatMicros, parseMicros } from "./audit-log.ts";

test("audit timestamps keep their microseconds", () => {
  const micros = parseMicros("2026-11-22T15:48:59.398070Z");
  expect(micros).toBe(Date.parse("2026-11-22T15:48:59Z") * 1000 + 398_070);
  expect(formatMicros(micros ?? 0)).toBe("2026-11-22T15:48:59.398070Z");
  expect(parseMicros("yesterday")).toBeUndefined();
});

test("the reader returns only complete new events and counts what it cannot read", () => {
  const dir = mkdtempSync(join(tmpdir(), "soak-audit-"));
  try {
    const path = join(dir, "audit.log");
    const reader = new AuditLogReader(path);
    expect(reader.readNew()).toEqual([]);
    const leaseWrite = {
      stage: "ResponseComplete",
      verb: "update",
      user: { username: "kube-loom-a" },
      objectRef: { resource: "leases", namespace: "kube-system", name: "kube-loom" },
      responseStatus: { code: 200 },
      requestReceivedTimestamp: "2026-11-22T15:48:59.000001Z",
      stageTimestamp: "2026-11-22T15:48:59.000002Z",
      requestObject: { spec: { holderIdentity: "host_1" } },
    };
    const line = JSON.stringify(leaseWrite);
    appendFileSync(path, `${line}\nnot json\n${line.slice(0, 20)}`);
    const first = reader.readNew();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ user: "kube-loom-a", resource: "leases", code: 200, holderIdentity: "host_1" });
    expect(reader.malformedLines).toBe(1);
    appendFileSync(path, `${line.slice(20)}\n`);
    expect(reader.readNew()).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
