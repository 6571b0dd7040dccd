// Runs the controllers as one member of a shard ring (--shard-ring) instead of under leader
// election: every replica runs them at once, and each reconciles, and writes, only in the
// namespaces whose slots it holds (pkg/shardelection). The ring's Leases are followed through an
// informer of their own, so a member that stops renewing or leaves is noticed at once, and so are
// the Namespaces (their metadata), over which the shares are balanced. Unlike
// losing an election, losing the membership does not end the process: it stops acting, joins
// again under a new Lease, and waits for its share to be handed to it.
import { ExpectedError } from "../errors/expected-error.ts";
import type { EventRecorder } from "../events/recorder.ts";
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { SharedIndexInformer } from "../informer/shared-informer.ts";
import type { PartialObjectMetadata } from "../kube/dynamic-client.ts";
import { deletionHandlingKeyFunc, splitMetaNamespaceKey } from "../informer/keys.ts";
import type { KubeClient } from "../kube/client.ts";
import { resources } from "../kube/gvr.ts";
import type { WireLease } from "../kube/lease-requests.ts";
import { namespaceOfPath } from "../kube/path-namespace.ts";
import type { WriteGuard } from "../kube/rest-client.ts";
import type { Logger } from "../log/logger.ts";
import type { LeaderElectionOptions } from "../options/leader-election-validation.ts";
import type { ConnectionOptions } from "../options/options.ts";
import type { ShardingOptions } from "../options/sharding-options.ts";
import type { HashRange } from "../sharding/hash-range.ts";
import { KubeRingApi, ringLabel, ringRoleLabel, tableOf } from "../shardelection/kube-ring-api.ts";
import { RingMember, type RingObserver } from "../shardelection/ring-member.ts";
import { RevocableWrites } from "./revocable-writes.ts";
import { abortedSignal, drain, type ExitReason, type RunControllers } from "./shutdown.ts";

/** A write refused because this process does not hold the slot of the namespace it addresses. */
class NotShardOwnerError extends ExpectedError {
  override readonly name = "NotShardOwnerError";
}

export interface ShardMembershipOptions {
  options: {
    /** The ring takes the election's timings and namespace. */
    leaderElection: Pick<LeaderElectionOptions, "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs" | "resourceNamespace">;
    connection: Pick<ConnectionOptions, "qps" | "burst">;
    /** How long a leaving holder waits for work in flight in a slot; undefined: the renew deadline. */
    controllerShutdownTimeoutMs: number | undefined;
    sharding: ShardingOptions;
  };
  client: KubeClient;
  identity: string;
  logger: Logger;
  /** Whether every sharded cache holds `ranges` by now. */
  cached: (ranges: readonly HashRange[]) => boolean;
  observer?: RingObserver | undefined;
}

export class ShardMembership {
  readonly member: RingMember;
  private readonly ring: string;
  private readonly namespace: string;
  /** The cluster's Namespaces, once followRing made the informer. */
  private namespaces: SharedIndexInformer<PartialObjectMetadata> | undefined;
  private readonly writes = new RevocableWrites();

  constructor(private readonly setup: ShardMembershipOptions) {
    const { leaderElection, connection, sharding, controllerShutdownTimeoutMs } = setup.options;
    this.ring = sharding.ring;
    this.namespace = leaderElection.resourceNamespace;
    const api = new KubeRingApi({
      client: setup.client,
      qps: connection.qps,
      burst: connection.burst,
      namespace: this.namespace,
      ring: this.ring,
      identity: setup.identity,
      leaseDurationMs: leaderElection.leaseDurationMs,
      requestTimeoutMs: Math.max(1000, leaderElection.renewDeadlineMs / 2),
    });
    this.member = new RingMember({
      api,
      ring: this.ring,
      identity: setup.identity,
      leaseDurationMs: leaderElection.leaseDurationMs,
      renewDeadlineMs: leaderElection.renewDeadlineMs,
      retryPeriodMs: leaderElection.retryPeriodMs,
      drainTimeoutMs: controllerShutdownTimeoutMs ?? leaderElection.renewDeadlineMs,
      cached: setup.cached,
      namespaces: () => (this.namespaces?.hasSynced() ? this.namespaces.getIndexer().listKeys() : undefined),
      logger: setup.logger,
      observer: setup.observer,
    });
    this.member.onLettingGo((lost) =>
      this.writes.revoke(lost, (namespace) => new NotShardOwnerError(`abandoned a write to namespace "${namespace}": this member of shard ring ${this.ring} stopped acting there before its answer came`)),
    );
  }

  /** Feeds the ring's Leases, members and table, and the cluster's namespaces to the member; call before the informers start. */
  followRing(informers: SharedInformerFactory): void {
    const { informer } = informers.forResource(resources.leases, { namespace: this.namespace, labelSelector: `${ringLabel}=${this.ring}` });
    const observe = (lease: WireLease) => {
      const name = lease.metadata?.name ?? "";
      if (lease.metadata?.labels?.[ringRoleLabel] === "slot-table") this.observeTable(lease);
      else this.member.observeMember(name, lease.metadata?.resourceVersion ?? "");
    };
    informer.addEventHandler({
      onAdd: observe,
      onUpdate: (_old, lease) => observe(lease),
      onDelete: (lease) => this.member.memberDeleted(splitMetaNamespaceKey(deletionHandlingKeyFunc(lease)).name),
    });
    const namespaces = informers.forMetadata(resources.namespaces);
    this.namespaces = namespaces.informer;
    this.namespaces.addEventHandler({ onAdd: () => this.member.namespacesChanged(), onUpdate: () => undefined, onDelete: () => this.member.namespacesChanged() });
  }

  /** A table this version cannot read is logged and left out: the member keeps the last it read, and its writes over it fail. */
  private observeTable(lease: WireLease): void {
    try {
      const { table, resourceVersion } = tableOf(lease);
      this.member.observeTable(table, resourceVersion);
    } catch (err) {
      this.setup.logger.error({ err: err instanceof Error ? err.message : String(err) }, "cannot read the shard ring's slot table; taking and giving no slots");
    }
  }

  /** Refuses a write to a namespace whose slot this process does not hold right now; one let through is abandoned if the member lets the namespace go before its answer came. */
  readonly writeGuard: WriteGuard = (request) => {
    const namespace = namespaceOfPath(request.path);
    if (!this.member.holds(namespace)) {
      throw new NotShardOwnerError(`not writing ${request.method} ${request.path}: this member of shard ring ${this.ring} does not hold namespace "${namespace}" now`);
    }
    return this.writes.admit(namespace);
  };

  /** Events about objects of namespaces this process does not hold are dropped, like their other writes. */
  ownedEvents(events: EventRecorder): EventRecorder {
    return {
      eventf: (regarding, related, type, reason, action, note) => {
        if (this.member.holds(regarding.metadata?.namespace ?? "")) events.eventf(regarding, related, type, reason, action, note);
      },
    };
  }

  /**
   * Joins the ring and runs the controllers beside it until `terminate`; then the controllers finish
   * their work in flight (up to --controller-shutdown-timeout) and the member hands its slots over and leaves.
   */
  async run(runControllers: RunControllers, terminate: AbortSignal): Promise<ExitReason> {
    const leave = new AbortController();
    const membership = this.member.run(leave.signal);
    const abort = new AbortController();
    // Work abandoned at the shutdown timeout may still try to write: the member stops every write before the controllers hear of it.
    abort.signal.addEventListener("abort", () => this.member.stopWriting(), { once: true });
    const controllers = runControllers(terminate, abort.signal);
    await abortedSignal(terminate);
    await drain(controllers, abort, this.setup.options.controllerShutdownTimeoutMs, this.setup.logger);
    leave.abort();
    await membership;
    return "terminated";
  }
}
