import { describe, expect, test } from "bun:test";
import { ApiError, TransportError } from "../../pkg/kube/errors.ts";
import { pod } from "../../test/replicaset/builders.ts";
import { mayHaveTakenEffect, UnsettledWrites } from "./unsettled-writes.ts";

describe("mayHaveTakenEffect", () => {
  const answered = (code: number) => ApiError.fromResponse(code, "", "POST", "/api/v1/namespaces/a/pods");

  test("a write without an HTTP answer, or answered 5xx, may have been stored", () => {
    expect(mayHaveTakenEffect(new TransportError("socket closed", "https://127.0.0.1:6443", "ECONNRESET"))).toBe(true);
    expect(mayHaveTakenEffect(answered(500))).toBe(true);
    expect(mayHaveTakenEffect(answered(504))).toBe(true);
  });

  test("a write answered 4xx was refused", () => {
    for (const code of [403, 409, 422, 429]) expect(mayHaveTakenEffect(answered(code))).toBe(false);
  });
});

describe("UnsettledWrites", () => {
  test("hands each unsettled write out once, per ReplicaSet", () => {
    const writes = new UnsettledWrites();
    writes.creationUnsettled("ns/web", "web-x7k2p");
    writes.creationUnsettled("ns/api", "api-b4d9q");
    const doomed = pod({ name: "web-b2c3d" });
    writes.deletionUnsettled("ns/web", "ns/web-b2c3d", doomed);
    expect(writes.takeCreations("ns/web")).toEqual(["web-x7k2p"]);
    expect(writes.takeCreations("ns/web")).toEqual([]);
    expect(writes.takeDeletions("ns/web")).toEqual([doomed]);
    expect(writes.takeDeletions("ns/web")).toEqual([]);
    expect(writes.takeCreations("ns/api")).toEqual(["api-b4d9q"]);
  });

  test("forgets a deleted ReplicaSet's writes", () => {
    const writes = new UnsettledWrites();
    writes.creationUnsettled("ns/web", "web-x7k2p");
    writes.delete("ns/web");
    expect(writes.takeCreations("ns/web")).toEqual([]);
  });
});
