import { describe, expect, test } from "bun:test";
import { RevocableWrites } from "./revocable-writes.ts";

describe("RevocableWrites", () => {
  test("revoking a namespace abandons the writes in flight there, with the reason, and no other", () => {
    const writes = new RevocableWrites();
    const inA = writes.admit("a");
    const inB = writes.admit("b");
    writes.revoke((namespace) => namespace === "a", (namespace) => new Error(`let ${namespace} go`));
    expect(inA.revoked?.aborted).toBe(true);
    expect((inA.revoked?.reason as Error).message).toBe("let a go");
    expect(inB.revoked?.aborted).toBe(false);
  });

  test("a write that settled is no longer revoked", () => {
    const writes = new RevocableWrites();
    const done = writes.admit("a");
    done.settled?.(true);
    writes.revoke(() => true, () => new Error("too late"));
    expect(done.revoked?.aborted).toBe(false);
  });
});
