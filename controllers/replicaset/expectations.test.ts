import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../pkg/clock/fake-clock.ts";
import { expectationsTimeoutMs, PodExpectations } from "./expectations.ts";

describe("PodExpectations", () => {
  test("a ReplicaSet without expectations may sync", () => {
    expect(new PodExpectations(new FakeClock()).satisfied("ns/web")).toBe(true);
  });

  test("creations are satisfied once each is observed", () => {
    const expectations = new PodExpectations(new FakeClock());
    expectations.expectCreations("ns/web", 2);
    expect(expectations.satisfied("ns/web")).toBe(false);
    expectations.creationObserved("ns/web");
    expect(expectations.satisfied("ns/web")).toBe(false);
    expectations.creationObserved("ns/web");
    expect(expectations.satisfied("ns/web")).toBe(true);
  });

  test("answered creations are met once the Pod cache reaches the newest answer, seen or not (a relist may have hidden them)", () => {
    const expectations = new PodExpectations(new FakeClock());
    expectations.expectCreations("ns/web", 3);
    expectations.creationAnswered("ns/web", "12");
    expectations.creationAnswered("ns/web", "10");
    expect(expectations.satisfied("ns/web", "20")).toBe(false); // the third is not answered yet
    expectations.creationNotMade("ns/web");
    expect(expectations.satisfied("ns/web", "11")).toBe(false);
    expect(expectations.satisfied("ns/web", "")).toBe(false); // a cache that cannot tell its version waits for the Pods
    expect(expectations.satisfied("ns/web", "12")).toBe(true);
  });

  test("each expected deletion counts once, whether seen as a deletionTimestamp or a delete", () => {
    const expectations = new PodExpectations(new FakeClock());
    expectations.expectDeletions("ns/web", ["ns/a", "ns/b"]);
    expectations.deletionObserved("ns/web", "ns/a");
    expectations.deletionObserved("ns/web", "ns/a");
    expect(expectations.satisfied("ns/web")).toBe(false);
    expectations.deletionObserved("ns/web", "ns/unrelated");
    expect(expectations.satisfied("ns/web")).toBe(false);
    expectations.deletionObserved("ns/web", "ns/b");
    expect(expectations.satisfied("ns/web")).toBe(true);
  });

  test("expectations expire after five minutes, so a lost watch event cannot stall a ReplicaSet forever", async () => {
    const clock = new FakeClock();
    const expectations = new PodExpectations(clock);
    expectations.expectCreations("ns/web", 1);
    await clock.advance(expectationsTimeoutMs);
    expect(expectations.satisfied("ns/web")).toBe(false);
    await clock.advance(1);
    expect(expectations.satisfied("ns/web")).toBe(true);
  });

  test("deleting forgets the ReplicaSet, so one recreated under the same name starts clean", () => {
    const expectations = new PodExpectations(new FakeClock());
    expectations.expectDeletions("ns/web", ["ns/a"]);
    expectations.delete("ns/web");
    expect(expectations.satisfied("ns/web")).toBe(true);
    expectations.creationObserved("ns/web");
    expect(expectations.satisfied("ns/web")).toBe(true);
  });

  test("observations for one ReplicaSet do not affect another", () => {
    const expectations = new PodExpectations(new FakeClock());
    expectations.expectCreations("ns/a", 1);
    expectations.expectCreations("ns/b", 1);
    expectations.creationObserved("ns/a");
    expect(expectations.satisfied("ns/a")).toBe(true);
    expect(expectations.satisfied("ns/b")).toBe(false);
  });
});
