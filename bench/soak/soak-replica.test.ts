import { expect, test } from "bun:test";
import { explainedExit } from "./soak-replica.ts";

test("exits the soak caused or a lost lease explains are not crashes", () => {
  expect(explainedExit("kill -9", 137, () => "")).toBe("killed (-9)");
  expect(explainedExit("SIGTERM", 0, () => "")).toBe("stopped (SIGTERM)");
  expect(explainedExit(undefined, 1, () => '{"msg":"leaderelection lost"}')).toBe("lost its lease (exit 1)");
  // A replica restarted just before the soak ended can die of SIGTERM before it handles signals.
  expect(explainedExit("soak end", 143, () => "")).toBe("stopped at soak end");
});

test("anything else is a crash", () => {
  expect(explainedExit(undefined, 1, () => "cannot serve on 127.0.0.1:10257")).toBeUndefined();
  expect(explainedExit("SIGTERM", 143, () => "")).toBeUndefined();
  expect(explainedExit(undefined, 0, () => "")).toBeUndefined();
});
