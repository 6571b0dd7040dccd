// Lease leader election with client-go's algorithm (tools/leaderelection/leaderelection.go).
//
// Candidates never compare the holder's renewTime with their own clock: a lease counts as
// expired once it has not changed for leaseDuration as measured locally since this process
// last saw it change. That tolerates any clock skew between nodes (not skew *rate*), and
// like client-go it does not fence: for a short while two processes may both believe they lead.
// "Measured locally" means on the monotonic clock: a stepped wall clock moves nothing here;
// the wall clock only fills the Lease's acquireTime and renewTime for people to read.
import { type Clock, realClock } from "../clock/clock.ts";
import { ExpectedError } from "../errors/expected-error.ts";
import { isConflict } from "../kube/errors.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import { type LeaderElectionRecord, type LeaseLock, type ObservedLeaderElectionRecord, rawLeaderElectionRecord } from "./lease-lock.ts";
import { type LeaderElectionMetrics, noopLeaderElectionMetrics } from "./metrics.ts";

/** client-go's JitterFactor: acquire attempts wait retryPeriod plus up to 120 % of it, so candidates spread out. */
const jitterFactor = 1.2;

export interface LeaderCallbacks {
  /** Called (not awaited) once this process leads; `signal` aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /**
   * Called when `run` ends, also when this process never led: client-go defers it in Run,
   * and kube-controller-manager relies on that to exit however the election ended.
   */
  onStoppedLeading(): void;
  /** Called asynchronously whenever the observed holder changes, the first holder seen included. */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectorConfig {
  lock: LeaseLock;
  /** How long candidates wait, from the last change they observed, before taking the lease over. */
  leaseDurationMs: number;
  /** How long the leader keeps retrying a renewal before it gives up leading. */
  renewDeadlineMs: number;
  /** The wait between attempts to acquire or renew. */
  retryPeriodMs: number;
  /** Hand the lease back when `run` is cancelled, so another candidate can take over at once. */
  releaseOnCancel: boolean;
  /** Names the lease in metrics and the health check. */
  name: string;
  callbacks: LeaderCallbacks;
  /** Where "<identity> became leader" / "<identity> stopped leading" go, e.g. an Event on the Lease. */
  onLeadershipEvent?(reason: "LeaderElection", message: string): void;
  clock?: Clock;
  logger?: Logger;
  metrics?: LeaderElectionMetrics;
}

const emptyRecord: LeaderElectionRecord = {
  holderIdentity: "",
  leaseDurationSeconds: 0,
  acquireTime: 0,
  renewTime: 0,
  leaseTransitions: 0,
};

/** A write refused because this process cannot be sure it still leads. */
export class NotLeadingError extends ExpectedError {
  override readonly name = "NotLeadingError";
}

export class LeaderElector {
  private readonly config: LeaderElectorConfig;
  private readonly lock: LeaseLock;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly metrics: LeaderElectionMetrics;
  private observedRecord: LeaderElectionRecord = emptyRecord;
  private observedRaw: string | undefined;
  private observedAt = 0;
  // Lags observedRecord.holderIdentity until the change has been reported to onNewLeader.
  private reportedLeader = "";
  /** Aborted by observe() to end the current acquire wait early. */
  private wakeUp: AbortController | undefined;
  /** Aborted by observe() when, while leading, the Lease is seen held by someone else. */
  private overtaken: AbortController | undefined;
  /** Set by keepLeaseOnStop: a cancellation leaves the Lease to expire instead of releasing it. */
  private releaseForgone = false;

  constructor(config: LeaderElectorConfig) {
    validate(config);
    this.config = config;
    this.lock = config.lock;
    this.clock = config.clock ?? realClock;
    this.logger = (config.logger ?? silentLogger).child({ lease: config.lock.describe() });
    this.metrics = config.metrics ?? noopLeaderElectionMetrics;
    this.metrics.setLeading(config.name, false);
  }

  /** Whether the last observed holder is this process. */
  isLeader(): boolean {
    return this.observedRecord.holderIdentity === this.lock.identity;
  }

  /** The last observed holder, "" before any was seen or after a release. */
  getLeader(): string {
    return this.observedRecord.holderIdentity;
  }

  /**
   * Throws NotLeadingError unless this process leads and renewed the Lease within the renew
   * deadline. No standby can take over before the lease duration has passed since the last
   * renewal it saw, so a write let through here cannot overlap another leader's — even after
   * this process was frozen (SIGSTOP, a stalled VM) for longer than the lease lasts, which
   * client-go does not guard against.
   */
  assertLeading(): void {
    if (!this.isLeader()) throw new NotLeadingError(`this process does not hold the Lease ${this.lock.describe()}`);
    const sinceRenewalMs = this.clock.monotonic() - this.observedAt;
    if (sinceRenewalMs > this.config.renewDeadlineMs) {
      throw new NotLeadingError(
        `this process last renewed the Lease ${this.lock.describe()} ${(sinceRenewalMs / 1000).toFixed(1)} s ago, longer than the renew deadline (${this.config.renewDeadlineMs / 1000} s): another replica may lead`,
      );
    }
  }

  /** The Lease's record as last seen or written: holder, acquire and renew times, transitions. */
  get observedLeaderRecord(): Readonly<LeaderElectionRecord> {
    return this.observedRecord;
  }

  /** Monotonic time at which the record was last seen to change or was last written by this process. */
  get observedTime(): number {
    return this.observedAt;
  }

  /**
   * Campaigns until this process leads, leads until a renewal misses its deadline or `signal`
   * aborts, then calls onStoppedLeading. Resolves when all of that is done.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const stopLeading = new AbortController();
      const leading = AbortSignal.any([signal, stopLeading.signal]);
      this.overtaken = new AbortController();
      this.callAsync("onStartedLeading", () => this.config.callbacks.onStartedLeading(leading));
      const outcome = await this.renew(AbortSignal.any([signal, this.overtaken.signal]));
      if (outcome === "deadline-missed" || this.overtaken.signal.aborted) {
        const why = outcome === "deadline-missed" ? "failed to renew lease" : "the lease is held by another candidate";
        this.logger.error({ holder: this.observedRecord.holderIdentity }, why);
        stopLeading.abort(new Error(`${why} ${this.lock.describe()}`));
      } else if (this.config.releaseOnCancel && !this.releaseForgone) {
        // Only on cancellation: after a failed renewal another candidate may already hold the lease.
        await this.release();
      }
      this.metrics.setLeading(this.config.name, false);
      this.config.onLeadershipEvent?.("LeaderElection", `${this.lock.identity} stopped leading`);
    } finally {
      this.config.callbacks.onStoppedLeading();
    }
  }

  /**
   * Makes the coming cancellation leave the Lease to expire rather than release it: for a leader
   * that cannot tell whether a write it sent has landed yet, since after a release the next leader
   * starts at once.
   */
  keepLeaseOnStop(): void {
    this.releaseForgone = true;
  }

  /** Throws once this process leads but has not renewed for leaseDuration + `toleranceMs` (the health check). */
  check(toleranceMs: number): void {
    // A standby candidate is healthy whatever the lease does.
    if (!this.isLeader()) return;
    if (this.clock.monotonic() - this.observedAt > this.config.leaseDurationMs + toleranceMs) {
      throw new Error(`failed election to renew leadership on lease ${this.config.name}`);
    }
  }

  /** Tries every retryPeriod (jittered) until it succeeds; false when `signal` aborted first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info("attempting to acquire leader lease");
    while (!signal.aborted) {
      const acquired = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (acquired) {
        this.config.onLeadershipEvent?.("LeaderElection", `${this.lock.identity} became leader`);
        this.metrics.setLeading(this.config.name, true);
        this.logger.info("successfully acquired lease");
        return true;
      }
      this.logger.debug("failed to acquire lease");
      this.wakeUp = new AbortController();
      await this.pause(this.acquireWaitMs(), AbortSignal.any([signal, this.wakeUp.signal]));
      this.wakeUp = undefined;
    }
    return false;
  }

  /**
   * Feeds a candidate the Lease as a watch saw it, between its own polls. A renewal seen
   * within milliseconds restarts the expiry countdown from (nearly) the holder's real
   * renewal, so a dead leader is replaced within the lease duration of its last renewal, not
   * of a poll up to 2.2 retry periods later; a released lease (no holder) is taken at once.
   */
  observe(record: LeaderElectionRecord): void {
    if (this.isLeader()) {
      // Someone else took the Lease over (a later term: more transitions than ours, so not a stale
      // copy from before we took it): we were cut off or frozen past its expiry. Stop now.
      const later = record.leaseTransitions > this.observedRecord.leaseTransitions;
      if (later && record.holderIdentity !== "" && record.holderIdentity !== this.lock.identity) {
        this.setObservedRecord(record);
        this.overtaken?.abort();
      }
      return;
    }
    const raw = rawLeaderElectionRecord(record);
    if (raw === this.observedRaw) return;
    this.setObservedRecord(record);
    this.observedRaw = raw;
    this.maybeReportTransition();
    if (record.holderIdentity === "") this.wakeUp?.abort();
  }

  /** Renews every retryPeriod until a renewal misses its deadline or `signal` aborts. */
  private async renew(signal: AbortSignal): Promise<"deadline-missed" | "cancelled"> {
    while (!signal.aborted) {
      const renewed = await this.renewWithinDeadline(signal);
      this.maybeReportTransition();
      if (signal.aborted) break;
      if (!renewed) return "deadline-missed";
      this.logger.trace("successfully renewed lease");
      if (!(await this.pause(this.config.retryPeriodMs, signal))) break;
    }
    return "cancelled";
  }

  /** One renewal: attempts every retryPeriod until one succeeds or renewDeadline passes. */
  private renewWithinDeadline(signal: AbortSignal): Promise<boolean> {
    return this.withinRenewDeadline("lease renewal", signal, async (bounded) => {
      for (;;) {
        if (await this.tryAcquireOrRenew(bounded)) return true;
        if (!(await this.pause(this.config.retryPeriodMs, bounded))) return false;
      }
    });
  }

  /** Runs `work` with a signal that aborts when `signal` does or once renewDeadline has passed, whichever comes first. */
  private async withinRenewDeadline<T>(what: string, signal: AbortSignal | undefined, work: (bounded: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = new AbortController();
    const timer = this.clock.setTimer(this.config.renewDeadlineMs, () => deadline.abort(new DOMException(`${what} deadline exceeded`, "TimeoutError")));
    try {
      return await work(signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal);
    } finally {
      timer.cancel();
    }
  }

  /**
   * One attempt to take or keep the lease; false when another live holder has it or the API failed.
   * The steps and their order follow client-go exactly.
   */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const at = this.clock.monotonic();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.lock.identity,
      leaseDurationSeconds: Math.floor(this.config.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };

    // 1. Fast path: the leader writes over the Lease it wrote last, without reading it first.
    if (this.isLeader() && this.isLeaseValid(at)) {
      const renewal = { ...desired, acquireTime: this.observedRecord.acquireTime, leaseTransitions: this.observedRecord.leaseTransitions };
      if (await this.write("update", renewal, signal, "failed to update lock optimistically, falling back to slow path")) return true;
    }

    // 2. Read the Lease, creating it when there is none.
    let current: ObservedLeaderElectionRecord | null;
    try {
      current = await this.lock.get(signal);
    } catch (err) {
      // Cancelled by our own signal (the process stops, or the renew deadline passed): not the API's failure.
      if (!signal.aborted) this.logger.error({ err }, "error retrieving resource lock");
      return false;
    }
    if (current === null) return this.write("create", desired, signal, "error initially creating leader election record");

    // 3. Any change restarts the expiry countdown, measured on the local clock.
    if (current.raw !== this.observedRaw) {
      this.setObservedRecord(current.record);
      this.observedRaw = current.raw;
    }
    if (current.record.holderIdentity !== "" && this.isLeaseValid(at) && !this.isLeader()) {
      this.logger.debug({ holder: current.record.holderIdentity }, "lock is held by another candidate and has not yet expired");
      return false;
    }

    // 4. Take over (a new term) or renew (keeping the term's start and transition count).
    let next: LeaderElectionRecord;
    if (this.isLeader()) {
      next = { ...desired, acquireTime: current.record.acquireTime, leaseTransitions: current.record.leaseTransitions };
      this.metrics.slowpathExercised(this.config.name);
    } else {
      next = { ...desired, leaseTransitions: current.record.leaseTransitions + 1 };
    }
    return this.write("update", next, signal, "failed to update lock");
  }

  /** Creates or updates the Lease with `record`; false, with `failure` logged, when the API refused. */
  private async write(method: "create" | "update", record: LeaderElectionRecord, signal: AbortSignal, failure: string): Promise<boolean> {
    try {
      await this.lock[method](record, signal);
    } catch (err) {
      if (!signal.aborted) this.logger.error({ err }, failure);
      return false;
    }
    this.setObservedRecord(record);
    return true;
  }

  /**
   * Hands the lease back: no holder, a one-second duration, so candidates take over at their next attempt.
   * A conflict means a renewal the server finished after this process stopped waiting for it moved the
   * resourceVersion: read again and retry while the Lease is still ours, within renewDeadline.
   */
  private async release(): Promise<void> {
    if (!this.isLeader()) return;
    const now = this.clock.now();
    const released: LeaderElectionRecord = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.observedRecord.leaseTransitions,
    };
    try {
      await this.withinRenewDeadline("lease release", undefined, async (deadline) => {
        for (;;) {
          deadline.throwIfAborted();
          try {
            await this.lock.update(released, deadline);
            this.setObservedRecord(released);
            this.logger.info("released lease");
            return;
          } catch (err) {
            if (!isConflict(err)) throw err;
          }
          const current = await this.lock.get(deadline);
          if (current?.record.holderIdentity !== this.lock.identity) {
            if (current) this.setObservedRecord(current.record);
            this.logger.info("lease no longer held by this process, nothing to release");
            return;
          }
        }
      });
    } catch (err) {
      this.logger.error({ err }, "failed to release lock");
    }
  }

  /**
   * client-go waits a jittered retry period between attempts. A candidate also knows when the
   * lease it observed expires, so it tries again right then: a dead leader's lease is taken over
   * within the lease duration instead of up to 2.2 retry periods after it.
   */
  private acquireWaitMs(): number {
    const jitteredMs = this.config.retryPeriodMs * (1 + Math.random() * jitterFactor);
    if (this.observedRecord.holderIdentity === "" || this.isLeader()) return jitteredMs;
    const untilExpiryMs = this.observedAt + this.observedRecord.leaseDurationSeconds * 1000 - this.clock.monotonic();
    return Math.max(1, Math.min(jitteredMs, untilExpiryMs + 1));
  }

  private isLeaseValid(monotonicNow: number): boolean {
    return this.observedAt + this.observedRecord.leaseDurationSeconds * 1000 > monotonicNow;
  }

  private setObservedRecord(record: LeaderElectionRecord): void {
    this.observedRecord = record;
    this.observedAt = this.clock.monotonic();
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord.holderIdentity;
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const onNewLeader = this.config.callbacks.onNewLeader;
    if (onNewLeader) this.callAsync("onNewLeader", () => onNewLeader(holder));
  }

  /** Runs a callback without waiting for it, as client-go's `go callback()`; a failure is logged, not thrown. */
  private callAsync(name: string, callback: () => void | Promise<void>): void {
    Promise.resolve()
      .then(callback)
      .catch((err: unknown) => this.logger.error({ err }, `leader election callback ${name} failed`));
  }

  /** Waits `ms`; false when `signal` aborted first. */
  private async pause(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }
}

function validate(config: LeaderElectorConfig): void {
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = config;
  const durations = { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
  for (const [name, value] of Object.entries(durations)) {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`leader election: ${name} must be greater than zero, got ${value}`);
  }
  if (leaseDurationMs <= renewDeadlineMs) {
    throw new Error(`leader election: leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs})`);
  }
  if (renewDeadlineMs <= jitterFactor * retryPeriodMs) {
    throw new Error(
      `leader election: renewDeadlineMs (${renewDeadlineMs}) must be greater than ${jitterFactor} × retryPeriodMs (${jitterFactor * retryPeriodMs})`,
    );
  }
  // The Lease stores whole seconds; a shorter duration would be written as 0 and expire at once.
  if (leaseDurationMs < 1000) throw new Error(`leader election: leaseDurationMs (${leaseDurationMs}) must be at least 1000, the Lease stores whole seconds`);
  if (!config.lock.identity) throw new Error("leader election: the lock's identity is empty");
}
