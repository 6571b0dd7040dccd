// Runs the controllers only while this process holds the Lease. A standby follows the Lease
// through the shared informers, so it notices a release or a missed renewal at once. Losing the
// Lease aborts the controllers at once and ends the run ("leadership-lost": the process must
// exit); a termination lets in-flight work finish while the Lease is still held, then stops
// every write and hands the Lease over once each write sent has been answered (writes-in-flight.ts).
import { realClock } from "../clock/clock.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { KubeClient } from "../kube/client.ts";
import { LeaderElectionHealthCheck } from "../leaderelection/healthz-adaptor.ts";
import { LeaderElector, NotLeadingError } from "../leaderelection/leader-elector.ts";
import type { WriteGuard } from "../kube/rest-client.ts";
import { KubeLeaseLock, recordFromLeaseSpec, type WireLeaseSpec } from "../leaderelection/lease-lock.ts";
import type { Logger } from "../log/logger.ts";
import type { Registry } from "prom-client";
import { PrometheusLeaderElectionMetrics } from "../metrics/leader-election-metrics.ts";
import type { Options } from "../options/options.ts";
import type { HealthCheck } from "../health/health-check.ts";
import { resources } from "../kube/gvr.ts";
import { LeaseCandidates } from "../status/lease-candidates.ts";
import { leaderElectionStatus } from "../status/leader-election-status.ts";
import type { LeaderElectionStatus } from "../status/status-snapshot.ts";
import { abortedSignal, drain, type ExitReason, type RunControllers } from "./shutdown.ts";
import { WritesInFlight } from "./writes-in-flight.ts";

/** kube-controller-manager's grace on top of the lease duration before /healthz reports a stuck leader. */
const leaderElectionHealthToleranceMs = 20_000;

export interface LeadershipOptions {
  options: Pick<Options, "leaderElection" | "connection" | "controllerShutdownTimeoutMs">;
  client: KubeClient;
  identity: string;
  events: EventRecorder;
  /** Where the leader_election_* metrics are registered. */
  metrics: Registry;
  logger: Logger;
}

export class Leadership {
  private readonly elector: LeaderElector;
  private readonly gracefulStop = new AbortController();
  private readonly hardAbort = new AbortController();
  private readonly electorStop = new AbortController();
  private controllersFinished: Promise<void> = Promise.resolve();
  private leadershipLost!: () => void;
  private readonly lost = new Promise<"leadership-lost">((resolve) => (this.leadershipLost = () => resolve("leadership-lost")));
  private runControllers: RunControllers | undefined;
  private readonly leaseName: string;
  private readonly candidates: LeaseCandidates;
  private readonly lease: { namespace: string; name: string };
  private readonly writes = new WritesInFlight();
  /** Aborts when this term of leadership ends (a missed renewal, the Lease taken, the elector stopped): writes still on their way are abandoned then. */
  private term: AbortSignal | undefined;
  /** Set once the controllers are done at a termination: no write may start any more. */
  private steppingDown = false;
  /** For /healthz and /livez: fails when this process leads but has not renewed the Lease in time. */
  readonly healthCheck: HealthCheck;

  constructor(private readonly setup: LeadershipOptions) {
    const { resourceNamespace: namespace, resourceName: name } = setup.options.leaderElection;
    this.lease = { namespace, name };
    this.leaseName = `${namespace}/${name}`;
    this.candidates = new LeaseCandidates(setup.identity, realClock);
    this.elector = this.createElector();
    const health = new LeaderElectionHealthCheck(leaderElectionHealthToleranceMs);
    health.setLeaderElection(this.elector);
    this.healthCheck = health;
  }

  /**
   * Every version of the Lease a watch sees reaches the elector between its own polls, so a
   * standby notices a release or a missed renewal at once. Call before the informers start.
   */
  followLease(informers: SharedInformerFactory): void {
    const { namespace, name } = this.lease;
    const { informer } = informers.forResource(resources.leases, { namespace, fieldSelector: `metadata.name=${name}` });
    const observe = (object: { spec?: WireLeaseSpec }) => this.elector.observe(recordFromLeaseSpec(object.spec));
    informer.addEventHandler({ onAdd: observe, onUpdate: (_old, object) => observe(object) });
  }

  private createElector(): LeaderElector {
    const { options, client, identity, logger, events } = this.setup;
    const { leaderElection, connection } = options;
    const lease = this.lease;
    const leaseRef = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: lease };
    return new LeaderElector({
      lock: new KubeLeaseLock({ client, qps: connection.qps, burst: connection.burst, ...lease, identity, renewDeadlineMs: leaderElection.renewDeadlineMs }),
      leaseDurationMs: leaderElection.leaseDurationMs,
      renewDeadlineMs: leaderElection.renewDeadlineMs,
      retryPeriodMs: leaderElection.retryPeriodMs,
      // Unlike kube-controller-manager (kubernetes#132599), hand the lease over on a clean exit.
      releaseOnCancel: true,
      name: lease.name,
      logger,
      metrics: new PrometheusLeaderElectionMetrics(this.setup.metrics),
      onLeadershipEvent: (reason, message) => events.eventf(leaseRef, undefined, "Normal", reason, "Leading", message),
      callbacks: {
        onStartedLeading: (leaderSignal) => this.startedLeading(leaderSignal),
        onStoppedLeading: () => {
          if (!this.electorStop.signal.aborted) this.leadershipLost();
        },
        onNewLeader: (holder) => {
          this.candidates.holderChanged(holder);
          if (holder !== identity) logger.info({ leader: holder }, "new leader elected");
        },
      },
    });
  }

  /** Campaigns, runs the controllers while leading, and resolves with why it ended. */
  async run(runControllers: RunControllers, terminate: AbortSignal): Promise<ExitReason> {
    this.runControllers = runControllers;
    const electorDone = this.elector.run(this.electorStop.signal);
    const reason = await Promise.race([this.lost, abortedSignal(terminate).then(() => "terminated" as const)]);
    if (reason === "leadership-lost") {
      this.setup.logger.error({ lease: this.leaseName }, "leaderelection lost");
      return reason;
    }
    // Finish in-flight work while still holding the lease, then hand it over.
    this.gracefulStop.abort();
    await drain(this.controllersFinished, this.hardAbort, this.setup.options.controllerShutdownTimeoutMs, this.setup.logger);
    this.steppingDown = true;
    const { renewDeadlineMs, leaseDurationMs } = this.setup.options.leaderElection;
    // The elector keeps renewing meanwhile; a write that got no answer may land until a lease duration has passed.
    if (!(await this.writes.allAnswered(renewDeadlineMs, leaseDurationMs))) {
      this.setup.logger.warn({ lease: this.leaseName }, "writes of this process may still land: leaving the Lease to expire instead of releasing it");
      this.elector.keepLeaseOnStop();
    }
    this.electorStop.abort();
    await electorDone;
    return "terminated";
  }

  /** Throws NotLeadingError unless this process leads, renewed the Lease within the renew deadline and is not stepping down. */
  assertLeading(): void {
    if (this.steppingDown) throw new NotLeadingError(`this process is handing over the Lease ${this.leaseName}`);
    this.elector.assertLeading();
  }

  /** The controllers' write guard: assertLeading, each write counted until it is answered, and abandoned if the term ends first. */
  readonly writeGuard: WriteGuard = () => {
    this.assertLeading();
    return { settled: this.writes.started(), revoked: this.term };
  };

  /** The Lease as this process sees it, for the status page. */
  status(): LeaderElectionStatus {
    return leaderElectionStatus(this.leaseName, this.elector, this.candidates);
  }

  private startedLeading(leaderSignal: AbortSignal): void {
    this.setup.logger.info({ identity: this.setup.identity }, "became leader; starting controllers");
    this.term = leaderSignal;
    // Losing the lease aborts the controllers at once; a termination only stops new work.
    leaderSignal.addEventListener("abort", () => this.hardAbort.abort(), { once: true });
    const run = this.runControllers;
    if (run) this.controllersFinished = run(AbortSignal.any([this.gracefulStop.signal, leaderSignal]), this.hardAbort.signal);
  }
}
