// Puts the status snapshot together from the parts of the process that own the data; a reconcile
// loop, for one, from its runner's snapshot, what the reconcile observer saw of it, and its
// workqueue's metrics. The HTTP server (and so the page) is up before the API server is reached,
// so the parts that exist only later are attached when the manager builds them; until then they
// show as empty.
import type { Registry } from "prom-client";
import { type Clock, realClock } from "../clock/clock.ts";
import type { SharedIndexInformer } from "../informer/shared-informer.ts";
import { informerStatus } from "./informer-status.ts";
import type { RecentEvents } from "./recent-events.ts";
import { ReconcileActivityObserver } from "./reconcile-activity-observer.ts";
import type { ControllerReport, ControllerStatus, LeaderElectionStatus, ProcessStatus, ShardRingStatus, StatusSnapshot } from "./status-snapshot.ts";
import { workqueueCounters } from "./workqueue-counters.ts";

export type NamedControllerReport = ControllerReport & { name: string };

/** The parts known only once the API server has been reached. */
export interface LateStatusParts {
  leaderElection?: () => LeaderElectionStatus;
  shardRing?: () => ShardRingStatus;
  /** The built controllers, in start order. */
  controllers?: () => NamedControllerReport[];
  informers?: () => readonly SharedIndexInformer[];
}

export interface StatusBoardOptions {
  process: ProcessStatus;
  /** Where the workqueues report workqueue_adds_total and workqueue_retries_total. */
  metrics: Registry;
  events: RecentEvents;
  clock?: Clock;
}

export class StatusBoard {
  /**
   * What the controllers' reconciles did, by loop: hand it to their runners among the reconcile
   * observers (ControllerContext.reconcileObserver), or the page shows no reconciles.
   */
  readonly reconciles: ReconcileActivityObserver;
  private readonly clock: Clock;
  private parts: LateStatusParts = {};

  constructor(private readonly options: StatusBoardOptions) {
    this.clock = options.clock ?? realClock;
    this.reconciles = new ReconcileActivityObserver(this.clock);
  }

  attach(parts: LateStatusParts): void {
    this.parts = { ...this.parts, ...parts };
  }

  async snapshot(): Promise<StatusSnapshot> {
    const counters = await workqueueCounters(this.options.metrics);
    const controllers = (this.parts.controllers?.() ?? []).map(
      ({ name, loops, details }): ControllerStatus => ({
        name,
        loops: loops.map((loop) => {
          const queue = counters.get(loop.queue);
          return { ...loop, ...this.reconciles.summary(loop.name), adds: queue?.adds, retries: queue?.retries };
        }),
        details: details ?? [],
      }),
    );
    return {
      generatedAt: this.clock.now(),
      process: this.options.process,
      leaderElection: this.parts.leaderElection?.(),
      shardRing: this.parts.shardRing?.(),
      controllers,
      informers: (this.parts.informers?.() ?? []).map(informerStatus).sort((a, b) => a.name.localeCompare(b.name)),
      events: this.options.events.list(),
      eventCounts: this.options.events.counts(),
    };
  }
}
