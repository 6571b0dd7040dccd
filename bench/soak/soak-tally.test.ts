import { expect, spyOn, test } from "bun:test";
import { SoakTally } from "./soak-tally.ts";

test("a fault skipped for want of a leader is not counted among the faults injected", () => {
  const quiet = spyOn(console, "error").mockImplementation(() => undefined);
  const tally = new SoakTally();
  tally.faultSkipped("leader-kill", "no leader");
  expect(tally.faults.size).toBe(0);
  tally.fault("tcp-cut");
  expect([...tally.faults]).toEqual([["tcp-cut", 1]]);
  expect([...tally.skippedFaults]).toEqual([["leader-kill", 1]]);
  quiet.mockRestore();
});
