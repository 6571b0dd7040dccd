import { describe, expect, test } from "bun:test";
import pino from "pino";
import { Registry } from "prom-client";
import { elapse, elapseUntil, FakeLeaseLock, FakeLeaseStore } from "../../test/support/fake-lease-lock.ts";
import { FakeClock } from "../clock/fake-clock.ts";
import type { Logger } from "../log/logger.ts";
import { PrometheusLeaderElectionMetrics } from "../metrics/leader-election-metrics.ts";
import { LeaderElector, type LeaderElectorConfig, NotLeadingError } from "./leader-elector.ts";
import type { LeaderElectionRecord } from "./lease-lock.ts";
import type { LeaderElectionMetrics } from "./metrics.ts";

const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
// An acquire attempt waits retryPeriod plus up to 120 % jitter; each test step adds up to 100 ms.
const longestAcquireWaitMs = timing.retryPeriodMs * 2.2 + 200;
const start = 1_700_000_000_000;
const year = 365 * 24 * 3600 * 1000;

interface CandidateOptions {
  clock?: FakeClock;
  releaseOnCancel?: boolean;
  logger?: Logger;
  metrics?: LeaderElectionMetrics;
}

/** One process campaigning for the lease, with everything its callbacks saw. */
function startCandidate(store: FakeLeaseStore, identity: string, options: CandidateOptions = {}) {
  const clock = options.clock ?? new FakeClock(start);
  const lock = new FakeLeaseLock(store, identity);
  const seen = { leading: [] as AbortSignal[], stopped: 0, newLeaders: [] as string[], events: [] as string[] };
  const config: LeaderElectorConfig = {
    lock,
    ...timing,
    releaseOnCancel: options.releaseOnCancel ?? false,
    name: "kube-controller-manager",
    clock,
    callbacks: {
      onStartedLeading: (signal) => void seen.leading.push(signal),
      onStoppedLeading: () => void seen.stopped++,
      onNewLeader: (leader) => void seen.newLeaders.push(leader),
    },
    onLeadershipEvent: (reason, message) => void seen.events.push(`${reason}: ${message}`),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  };
  const elector = new LeaderElector(config);
  const cancel = new AbortController();
  const finished = elector.run(cancel.signal);
  return { clock, lock, elector, seen, cancel, finished };
}

function heldRecord(holderIdentity: string, at: number, overrides: Partial<LeaderElectionRecord> = {}): LeaderElectionRecord {
  return { holderIdentity, leaseDurationSeconds: 15, acquireTime: at, renewTime: at, leaseTransitions: 0, ...overrides };
}

/** The first write of `identity` took the lease over, within the last test step. */
function expectTakeover(store: FakeLeaseStore, identity: string, clock: FakeClock, leaseTransitions: number): void {
  const record = store.writes.find((w) => w.by === identity)?.record;
  expect(record).toMatchObject({ holderIdentity: identity, leaseDurationSeconds: 15, leaseTransitions });
  expect(record?.acquireTime).toBe(record?.renewTime ?? Number.NaN);
  expect(record?.acquireTime).toBeWithin(clock.now() - 100, clock.now() + 1);
}

function capturingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void messages.push(JSON.parse(line).msg) });
  return { logger, messages };
}

describe("LeaderElector configuration", () => {
  const lock = new FakeLeaseLock(new FakeLeaseStore(), "a");
  const callbacks = { onStartedLeading() {}, onStoppedLeading() {} };
  const make = (overrides: Partial<LeaderElectorConfig>) =>
    () => new LeaderElector({ lock, ...timing, releaseOnCancel: false, name: "x", callbacks, ...overrides });

  test("lease duration must exceed the renew deadline", () => {
    expect(make({ leaseDurationMs: 10_000 })).toThrow("leaseDurationMs (10000) must be greater than renewDeadlineMs (10000)");
  });

  test("renew deadline must exceed 1.2 × retry period", () => {
    expect(make({ renewDeadlineMs: 2_400 })).toThrow("renewDeadlineMs (2400) must be greater than 1.2 × retryPeriodMs (2400)");
  });

  test("every duration must be positive", () => {
    expect(make({ retryPeriodMs: 0 })).toThrow("retryPeriodMs must be greater than zero, got 0");
    expect(make({ renewDeadlineMs: -1 })).toThrow("renewDeadlineMs must be greater than zero, got -1");
    expect(make({ leaseDurationMs: Number.NaN })).toThrow("leaseDurationMs must be greater than zero, got NaN");
  });

  test("the lease duration must be a whole second at least, and the identity non-empty", () => {
    expect(make({ leaseDurationMs: 900, renewDeadlineMs: 500, retryPeriodMs: 100 })).toThrow("leaseDurationMs (900) must be at least 1000");
    expect(make({ lock: new FakeLeaseLock(new FakeLeaseStore(), "") })).toThrow("identity is empty");
  });

  test("the defaults of kube-controller-manager are valid", () => {
    expect(make({})).not.toThrow();
  });
});

describe("LeaderElector", () => {
  test("creates a missing lease and leads at once", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a");
    await elapse(100, a.clock);

    expect(store.writes[0]).toEqual({ by: "a", verb: "create", record: heldRecord("a", start) });
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.getLeader()).toBe("a");
    expect(a.seen.leading).toHaveLength(1);
    expect(a.seen.leading[0]?.aborted).toBe(false);
    expect(a.seen.newLeaders).toEqual(["a"]);
    expect(a.seen.events).toEqual(["LeaderElection: a became leader"]);
    a.cancel.abort();
    await a.finished;
  });

  test("renewals keep acquireTime and leaseTransitions and run every retry period", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a");
    await elapse(20_000, a.clock);

    const renewals = store.writes.filter((w) => w.verb === "update");
    expect(renewals.length).toBeGreaterThanOrEqual(10);
    for (const { record } of renewals) expect(record).toMatchObject({ holderIdentity: "a", acquireTime: start, leaseTransitions: 0 });
    const renewTimes = renewals.map((w) => w.record.renewTime);
    expect(renewTimes).toEqual([...renewTimes].sort((x, y) => x - y));
    expect(renewTimes.at(-1)).toBeGreaterThan(start + 17_000);
    a.cancel.abort();
    await a.finished;
  });

  test("a takeover starts a new term: leaseTransitions + 1 and acquireTime = now", async () => {
    const store = new FakeLeaseStore();
    store.write("old", "update", heldRecord("old", start - 60_000, { leaseTransitions: 4, acquireTime: start - 600_000 }));
    const b = startCandidate(store, "b");
    const waited = await elapseUntil(() => b.elector.isLeader(), 30_000, b.clock);

    expect(waited).toBeGreaterThanOrEqual(timing.leaseDurationMs);
    expectTakeover(store, "b", b.clock, 5);
    expect(b.seen.newLeaders).toEqual(["old", "b"]);
    b.cancel.abort();
    await b.finished;
  });

  // The holder's clock is a year off, either way: a candidate that compared renewTime with its
  // own clock would take over at once (holder behind) or never (holder ahead).
  test.each([
    ["behind", -year],
    ["ahead", year],
    ["in step", 0],
  ])("a standby waits while the leader renews (holder's clock %s), then takes over as soon as leaseDuration has passed since it saw the last change", async (_, skew) => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { clock: new FakeClock(start + skew) });
    await elapse(100, a.clock);
    const b = startCandidate(store, "b");

    await elapse(60_000, a.clock, b.clock);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.getLeader()).toBe("a");
    expect(b.seen.leading).toHaveLength(0);
    expect(store.writes.filter((w) => w.by === "a").length).toBeGreaterThan(25);

    a.cancel.abort();
    await a.finished;
    expect(store.lease?.record.holderIdentity).toBe("a");
    // Let b read the final record once: the countdown runs from that observation.
    await elapse(longestAcquireWaitMs, a.clock, b.clock);
    const observed = b.elector.observedTime;

    await elapseUntil(() => b.elector.isLeader(), 30_000, a.clock, b.clock);
    const acquiredAt = b.clock.monotonic();
    expect(acquiredAt).toBeGreaterThanOrEqual(observed + timing.leaseDurationMs);
    // It retries right at expiry (+1 ms) rather than a jittered retry period later: within one 100 ms test step of it.
    expect(acquiredAt).toBeLessThanOrEqual(observed + timing.leaseDurationMs + 1 + 100);
    expectTakeover(store, "b", b.clock, 1);
    expect(b.seen.newLeaders).toEqual(["a", "b"]);
    b.cancel.abort();
    await b.finished;
  });

  test.each(["fail", "hang"] as const)(
    "when renewals %s until renewDeadline, the leader signal aborts, onStoppedLeading runs and the lease is not released",
    async (behaviour) => {
      const store = new FakeLeaseStore();
      const { logger, messages } = capturingLogger();
      const a = startCandidate(store, "a", { releaseOnCancel: true, logger });
      await elapse(1_000, a.clock);
      const leading = a.seen.leading[0];
      expect(leading?.aborted).toBe(false);

      // The last renewal was at `start` (right after acquiring); the next round begins one retry period later.
      a.lock.behaviour = behaviour;
      const nextRound = start + timing.retryPeriodMs;
      await elapse(nextRound + timing.renewDeadlineMs - a.clock.now() - 200, a.clock);
      expect(leading?.aborted).toBe(false);
      expect(a.seen.stopped).toBe(0);

      await elapse(400, a.clock);
      expect(leading?.aborted).toBe(true);
      expect(String(leading?.reason)).toContain("failed to renew lease kube-system/test-lease");
      await a.finished;
      expect(a.seen.stopped).toBe(1);
      expect(messages).toContain("failed to renew lease");
      expect(a.seen.events).toEqual(["LeaderElection: a became leader", "LeaderElection: a stopped leading"]);
      expect(store.lease?.record.holderIdentity).toBe("a");
    },
  );

  test("a wall clock stepped forward on a standby between observations does not expire a live lease; stepped back, it does not stall the leader", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a");
    await elapse(100, a.clock);
    const b = startCandidate(store, "b");
    let lastSeen: LeaderElectionRecord | undefined;
    for (let step = 0; step < 600; step++) {
      const record = store.lease?.record;
      if (record && record !== lastSeen && record.renewTime !== lastSeen?.renewTime) {
        // b sees each renewal through its watch, then NTP steps its wall clock forward.
        lastSeen = record;
        b.elector.observe(record);
        b.clock.stepWall(20_000);
        a.clock.stepWall(-20_000);
      }
      await elapse(100, a.clock, b.clock);
      expect(b.elector.isLeader()).toBe(false);
    }
    expect(a.elector.isLeader()).toBe(true);
    expect(b.seen.leading).toHaveLength(0);
    expect(a.seen.leading[0]?.aborted).toBe(false);
    for (const candidate of [a, b]) candidate.cancel.abort();
    await Promise.all([a.finished, b.finished]);
  });

  test("a leader that sees another candidate hold a later term stops at once, without releasing the Lease", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { releaseOnCancel: true });
    await elapse(1_000, a.clock);
    const leading = a.seen.leading[0];
    // c took over while a was frozen; a's Lease informer delivers that as soon as a runs again.
    const takeover = store.write("c", "update", heldRecord("c", a.clock.now(), { leaseTransitions: 1 })).record;
    a.elector.observe(takeover);
    await elapse(100, a.clock);
    expect(leading?.aborted).toBe(true);
    expect(String(leading?.reason)).toContain("the lease is held by another candidate");
    await a.finished;
    expect(a.seen.stopped).toBe(1);
    expect(store.lease?.record.holderIdentity).toBe("c");
  });

  test("a leader ignores a stale copy of the Lease from before its own term", async () => {
    const store = new FakeLeaseStore();
    const stale = store.write("old", "update", heldRecord("old", start - 60_000, { leaseTransitions: 4 })).record;
    const a = startCandidate(store, "a");
    await elapseUntil(() => a.elector.isLeader(), 30_000, a.clock);
    a.elector.observe(stale);
    await elapse(5_000, a.clock);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.seen.leading[0]?.aborted).toBe(false);
    a.cancel.abort();
    await a.finished;
  });

  test("assertLeading: a standby may not write; a leader may until its last renewal is older than the renew deadline", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a");
    await elapse(100, a.clock);
    const b = startCandidate(store, "b");
    await elapse(100, a.clock, b.clock);
    expect(() => a.elector.assertLeading()).not.toThrow();
    expect(() => b.elector.assertLeading()).toThrow(NotLeadingError);
    // Frozen: no timer runs and no renewal happens, then the process resumes and a worker writes.
    a.clock.advanceWithoutTimers(timing.renewDeadlineMs + 1);
    expect(() => a.elector.assertLeading()).toThrow("longer than the renew deadline (10 s): another replica may lead");
    for (const candidate of [a, b]) candidate.cancel.abort();
    await elapse(100, a.clock, b.clock);
  });

  test("a renewal that fails once is retried within the deadline and leadership goes on", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a");
    await elapse(1_000, a.clock);
    a.lock.behaviour = "fail";
    await elapse(5_000, a.clock);
    a.lock.behaviour = "answer";
    await elapse(5_000, a.clock);

    expect(a.seen.leading[0]?.aborted).toBe(false);
    expect(store.lease?.record.renewTime).toBeGreaterThan(start + 8_000);
    a.cancel.abort();
    await a.finished;
  });

  test("onStoppedLeading runs even for a candidate that never led", async () => {
    const store = new FakeLeaseStore();
    store.write("other", "create", heldRecord("other", start));
    const b = startCandidate(store, "b", { releaseOnCancel: true });
    await elapse(5_000, b.clock);
    b.cancel.abort();
    await b.finished;

    expect(b.seen.stopped).toBe(1);
    expect(b.seen.leading).toHaveLength(0);
    expect(b.seen.events).toEqual([]);
    expect(store.writes).toHaveLength(1);
  });

  test("release on cancel clears the holder, and a standby takes over within about one retry period", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { releaseOnCancel: true });
    await elapse(100, a.clock);
    const b = startCandidate(store, "b");
    await elapse(10_000, a.clock, b.clock);

    a.cancel.abort();
    await a.finished;
    expect(a.seen.leading[0]?.aborted).toBe(true);
    expect(a.seen.stopped).toBe(1);
    expect(a.elector.isLeader()).toBe(false);
    expect(store.lease?.record).toEqual({ holderIdentity: "", leaseDurationSeconds: 1, acquireTime: a.clock.now(), renewTime: a.clock.now(), leaseTransitions: 0 });

    const waited = await elapseUntil(() => b.elector.isLeader(), 30_000, a.clock, b.clock);
    expect(waited).toBeLessThanOrEqual(longestAcquireWaitMs);
    expect(store.lease?.record).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    b.cancel.abort();
    await b.finished;
  });

  test("keepLeaseOnStop: the cancellation leaves the Lease held, to expire, instead of releasing it", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { releaseOnCancel: true });
    await elapse(100, a.clock);
    expect(a.elector.isLeader()).toBe(true);
    a.elector.keepLeaseOnStop();
    a.cancel.abort();
    await a.finished;
    expect(a.seen.stopped).toBe(1);
    expect(store.lease?.record.holderIdentity).toBe("a");
  });

  test("a renewal in flight when the process stops is cancelled, not a failure: nothing is logged as an error", async () => {
    const store = new FakeLeaseStore();
    const { logger, messages } = capturingLogger();
    const a = startCandidate(store, "a", { releaseOnCancel: true, logger });
    await elapse(100, a.clock);
    expect(a.elector.isLeader()).toBe(true);
    a.lock.behaviour = "hang";
    await elapse(timing.retryPeriodMs + 200, a.clock);
    a.lock.behaviour = "answer";
    a.cancel.abort();
    await a.finished;
    // The soak found "failed to update lock optimistically" and "error retrieving resource lock" logged with the AbortError's stack.
    expect(messages.filter((message) => /failed|error/.test(message))).toEqual([]);
  });

  test("observe(): a watched release makes a waiting standby take over at once", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { releaseOnCancel: true });
    await elapse(100, a.clock);
    const b = startCandidate(store, "b");
    await elapse(10_000, a.clock, b.clock);
    a.cancel.abort();
    await a.finished;

    b.elector.observe(store.lease?.record as LeaderElectionRecord);
    const waited = await elapseUntil(() => b.elector.isLeader(), 30_000, a.clock, b.clock);
    // One test step, not a retry period: the attempt ran as soon as the wait was cut.
    expect(waited).toBeLessThanOrEqual(100);
    b.cancel.abort();
    await b.finished;
  });

  test("observe(): renewals seen by a watch restart the countdown; takeover comes leaseDuration after the last one", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a");
    await elapse(100, a.clock);
    const b = startCandidate(store, "b");
    // Every renewal of a reaches b at once, as through a watch.
    let lastRenewalSeen = 0;
    const feed = setInterval(() => {
      const record = store.lease?.record;
      if (record && record.holderIdentity === "a" && record.renewTime !== lastRenewalSeen) {
        lastRenewalSeen = record.renewTime;
        b.elector.observe(record);
      }
    }, 0);
    await elapse(10_000, a.clock, b.clock);
    a.cancel.abort();
    await a.finished;
    const lastRenewalAt = b.elector.observedTime;
    await elapseUntil(() => b.elector.isLeader(), 30_000, a.clock, b.clock);
    clearInterval(feed);
    expect(b.clock.monotonic()).toBeGreaterThanOrEqual(lastRenewalAt + timing.leaseDurationMs);
    expect(b.clock.monotonic()).toBeLessThanOrEqual(lastRenewalAt + timing.leaseDurationMs + 1 + 100);
    b.cancel.abort();
    await b.finished;
  });

  test("release retries after a conflict with a renewal that landed late", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { releaseOnCancel: true });
    await elapse(3_000, a.clock);
    // The server applies a renewal a moment before the release arrives: the release's resourceVersion is stale.
    a.lock.beforeNextUpdate = () => store.write("a", "update", heldRecord("a", start, { renewTime: a.clock.now() }));
    const getsBefore = a.lock.calls.get;

    a.cancel.abort();
    await a.finished;
    expect(a.lock.calls.get).toBe(getsBefore + 1);
    expect(store.lease?.record.holderIdentity).toBe("");
  });

  test("a release the API never answers gives up after renewDeadline, leaving the lease to expire", async () => {
    const store = new FakeLeaseStore();
    const { logger, messages } = capturingLogger();
    const a = startCandidate(store, "a", { releaseOnCancel: true, logger });
    await elapse(3_000, a.clock);
    a.lock.behaviour = "hang";

    a.cancel.abort();
    let finished = false;
    void a.finished.then(() => (finished = true));
    await elapse(timing.renewDeadlineMs - 200, a.clock);
    expect(finished).toBe(false);
    await elapse(400, a.clock);
    expect(finished).toBe(true);
    expect(a.seen.stopped).toBe(1);
    expect(messages).toContain("failed to release lock");
    expect(store.lease?.record.holderIdentity).toBe("a");
  });

  test("a lease someone else wrote meanwhile is not released", async () => {
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { releaseOnCancel: true });
    await elapse(3_000, a.clock);
    a.lock.beforeNextUpdate = () => store.write("c", "update", heldRecord("c", a.clock.now(), { leaseTransitions: 1 }));

    a.cancel.abort();
    await a.finished;
    expect(store.lease?.record.holderIdentity).toBe("c");
    expect(a.elector.getLeader()).toBe("c");
  });

  test("a conflict on update fails that attempt; the winner's write is then respected", async () => {
    const store = new FakeLeaseStore();
    store.write("old", "update", { ...heldRecord("", start), leaseDurationSeconds: 1 });
    const clock = new FakeClock(start);
    // b reads the free lease, but c's takeover reaches the server first.
    const lock = new FakeLeaseLock(store, "b");
    lock.beforeNextUpdate = () => store.write("c", "update", heldRecord("c", clock.now(), { leaseTransitions: 1 }));
    const seen: string[] = [];
    const b = new LeaderElector({
      lock,
      ...timing,
      releaseOnCancel: false,
      name: "kube-controller-manager",
      clock,
      callbacks: { onStartedLeading: () => void seen.push("started"), onStoppedLeading() {}, onNewLeader: (id) => void seen.push(id) },
    });
    const cancel = new AbortController();
    const finished = b.run(cancel.signal);
    await elapse(10_000, clock);

    expect(lock.calls.update).toBe(1);
    expect(b.isLeader()).toBe(false);
    expect(b.getLeader()).toBe("c");
    expect(store.lease?.record.holderIdentity).toBe("c");
    expect(seen).toEqual(["c"]);
    cancel.abort();
    await finished;
  });

  test("leader_election_master_status follows leadership; a stale fast path counts as slow path", async () => {
    const registry = new Registry();
    const metrics = new PrometheusLeaderElectionMetrics(registry);
    const store = new FakeLeaseStore();
    const a = startCandidate(store, "a", { metrics });
    const exposition = () => registry.metrics();
    expect(await exposition()).toContain('leader_election_master_status{name="kube-controller-manager"} 0');

    await elapse(1_000, a.clock);
    expect(await exposition()).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
    expect(await exposition()).not.toContain("leader_election_slowpath_total{");

    // Someone touches the Lease (still held by a): the cached copy goes stale, the next renewal reads first.
    a.lock.beforeNextUpdate = () => store.write("kubectl", "update", store.lease?.record ?? heldRecord("a", start));
    await elapse(2_000, a.clock);
    expect(await exposition()).toContain('leader_election_slowpath_total{name="kube-controller-manager"} 1');
    expect(a.elector.isLeader()).toBe(true);
    expect(store.writes.at(-1)?.by).toBe("a");

    a.cancel.abort();
    await a.finished;
    expect(await exposition()).toContain('leader_election_master_status{name="kube-controller-manager"} 0');
  });
});
