import { describe, expect, test } from "bun:test";
import { elapse, FakeLeaseLock, FakeLeaseStore } from "../../test/support/fake-lease-lock.ts";
import { FakeClock } from "../clock/fake-clock.ts";
import { LeaderElectionHealthCheck } from "./healthz-adaptor.ts";
import { LeaderElector } from "./leader-elector.ts";

const toleranceMs = 20_000;
const leaseDurationMs = 15_000;

function runCandidate(store: FakeLeaseStore, identity: string, clock: FakeClock) {
  const lock = new FakeLeaseLock(store, identity);
  const elector = new LeaderElector({
    lock,
    leaseDurationMs,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    releaseOnCancel: false,
    name: "kube-controller-manager",
    clock,
    callbacks: { onStartedLeading() {}, onStoppedLeading() {} },
  });
  const cancel = new AbortController();
  const finished = elector.run(cancel.signal);
  const stop = async () => {
    cancel.abort();
    await finished;
  };
  return { lock, elector, stop };
}

describe("LeaderElectionHealthCheck", () => {
  test("is named leaderElection and passes before an elector is set", () => {
    const check = new LeaderElectionHealthCheck(toleranceMs);
    expect(check.name).toBe("leaderElection");
    expect(() => check.check()).not.toThrow();
  });

  test("passes for a renewing leader and for a standby", async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const leader = runCandidate(store, "a", clock);
    const standby = runCandidate(store, "b", clock);
    const leaderCheck = new LeaderElectionHealthCheck(toleranceMs);
    const standbyCheck = new LeaderElectionHealthCheck(toleranceMs);
    leaderCheck.setLeaderElection(leader.elector);
    standbyCheck.setLeaderElection(standby.elector);

    await elapse(60_000, clock);
    expect(leader.elector.isLeader()).toBe(true);
    expect(() => leaderCheck.check()).not.toThrow();
    expect(standby.elector.isLeader()).toBe(false);
    expect(() => standbyCheck.check()).not.toThrow();
    await leader.stop();
    await standby.stop();
  });

  test("fails once a leader has not renewed for leaseDuration + tolerance", async () => {
    const clock = new FakeClock();
    const leader = runCandidate(new FakeLeaseStore(), "a", clock);
    const check = new LeaderElectionHealthCheck(toleranceMs);
    check.setLeaderElection(leader.elector);
    await elapse(3_000, clock);
    leader.lock.behaviour = "hang";

    // The renewal gives up after renewDeadline; the process still believes it holds the lease.
    await elapse(20_000, clock);
    expect(leader.elector.isLeader()).toBe(true);
    const unhealthyAfter = leader.elector.observedTime + leaseDurationMs + toleranceMs;
    await clock.advance(unhealthyAfter - clock.monotonic());
    expect(() => check.check()).not.toThrow();
    await clock.advance(1);
    expect(() => check.check()).toThrow("failed election to renew leadership on lease kube-controller-manager");
    await leader.stop();
  });
});
