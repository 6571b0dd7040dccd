import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../pkg/clock/fake-clock.ts";
import { now, pod, replicaSet, type Pod, type ReplicaSet } from "../../test/replicaset/builders.ts";
import { availabilityRecheckDelay } from "./availability-recheck.ts";

/** The ReplicaSet as written: `ready` and `available` counts in its status. */
function written(replicas: number, minReadySeconds: number, ready: number, available: number): ReplicaSet {
  return { ...replicaSet("web", replicas, { minReadySeconds }), status: { replicas, readyReplicas: ready, availableReplicas: available } };
}

/** A clock reading `now` (the builders' reference time) plus `laterMs`. */
function clockAt(laterMs = 0): FakeClock {
  return new FakeClock(now + laterMs);
}

describe("availabilityRecheckDelay", () => {
  test("nothing to wait for without minReadySeconds, or when every ready Pod is available", () => {
    const pods: Pod[] = [pod({ name: "a", readyFor: 1 })];
    expect(availabilityRecheckDelay(written(1, 0, 1, 1), pods, now, clockAt())).toBeUndefined();
    expect(availabilityRecheckDelay(written(1, 10, 1, 1), pods, now, clockAt())).toBeUndefined();
  });

  test("the next look is when the first ready Pod becomes available, even while not all replicas are ready", () => {
    // Ready 3 s and 7 s ago with minReadySeconds 10: the second becomes available in 3 s.
    // kube-controller-manager 1.33 waited a whole minReadySeconds, and only once every replica was ready.
    const pods = [pod({ name: "a", readyFor: 3 }), pod({ name: "b", readyFor: 7 }), pod({ name: "c" })];
    expect(availabilityRecheckDelay(written(3, 10, 2, 0), pods, now, clockAt())).toBe(3000);
  });

  test("time spent since the status was computed is taken off; a moment already passed means at once", () => {
    const pods = [pod({ name: "a", readyFor: 7 })];
    expect(availabilityRecheckDelay(written(1, 10, 1, 0), pods, now, clockAt(1200))).toBe(1800);
    expect(availabilityRecheckDelay(written(1, 10, 1, 0), pods, now, clockAt(5000))).toBe(0);
  });

  test("a Pod found available after the status was computed is still waited for: the status judged it at statusNow", () => {
    // Ready 9.5 s at statusNow, so not available in that status; 10.5 s by the time the check runs.
    const pods = [pod({ name: "a", readyFor: 9 })];
    expect(availabilityRecheckDelay(written(1, 10, 1, 0), pods, now + 500, clockAt(1500))).toBe(0);
  });

  test("a ready Pod without a ready time is looked at again after minReadySeconds", () => {
    const pods = [pod({ name: "a", readyWithoutTime: true })];
    expect(availabilityRecheckDelay(written(1, 10, 1, 0), pods, now, clockAt())).toBe(10_000);
  });
});
