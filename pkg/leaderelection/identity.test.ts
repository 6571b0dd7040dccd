import { expect, test } from "bun:test";
import { leaderElectionIdentity } from "./identity.ts";

test("leaderElectionIdentity is hostname_uuid, unique per call", () => {
  expect(leaderElectionIdentity("node-1")).toMatch(/^node-1_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(leaderElectionIdentity("node-1")).not.toBe(leaderElectionIdentity("node-1"));
});
