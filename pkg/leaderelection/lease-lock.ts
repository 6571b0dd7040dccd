// The Lease that leader election runs on (client-go's resourcelock.Interface and LeaseLock):
// the elector reads and writes a LeaderElectionRecord, the lock maps it onto a
// coordination.k8s.io/v1 Lease and keeps the object it read last, so every write is a PUT
// guarded by that resourceVersion and a concurrent writer makes it fail with a 409 conflict.
import type { V1LeaseSpec } from "@kubernetes/client-node";
import { type KubeClient, withRateLimit } from "../kube/client.ts";
import type { ResourceClient } from "../kube/dynamic-client.ts";
import { isNotFound } from "../kube/errors.ts";
import { apiVersionOf, resources } from "../kube/gvr.ts";
import { type LeaseRequester, leaseRequester, type WireLease } from "../kube/lease-requests.ts";
import type { Wire } from "../kube/objects.ts";
import { formatMicroTime, parseMicroTime } from "../kube/micro-time.ts";

export type WireLeaseSpec = Wire<V1LeaseSpec>;

/** The election state kept in the Lease spec; times are epoch milliseconds. */
export interface LeaderElectionRecord {
  /** "" when nobody holds the lease, e.g. after a release. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number;
  renewTime: number;
  leaseTransitions: number;
}

export interface ObservedLeaderElectionRecord {
  record: LeaderElectionRecord;
  /** The record in a canonical text form: the elector compares it to notice any change, without trusting anyone's clock. */
  raw: string;
}

export interface LeaseLock {
  readonly identity: string;
  /** namespace/name, for logs. */
  describe(): string;
  /** The current record, or null when the Lease does not exist. */
  get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | null>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Writes over the Lease read or written last; fails with a conflict if anyone wrote it since. */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
}

export function rawLeaderElectionRecord(record: LeaderElectionRecord): string {
  // Fixed key order, so equal records always give equal text.
  const { holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions } = record;
  return JSON.stringify({ holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions });
}

export function leaseSpecFromRecord(record: LeaderElectionRecord): WireLeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: formatMicroTime(record.acquireTime),
    renewTime: formatMicroTime(record.renewTime),
    leaseTransitions: record.leaseTransitions,
  };
}

/** Missing fields read as client-go reads them: empty holder, zero durations and times. */
export function recordFromLeaseSpec(spec: WireLeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? "",
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: spec?.acquireTime ? parseMicroTime(spec.acquireTime) : 0,
    renewTime: spec?.renewTime ? parseMicroTime(spec.renewTime) : 0,
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}

export interface KubeLeaseLockOptions {
  /** The process's client; the lock takes its connection and credentials, never its rate limiter. */
  client: KubeClient;
  /** The lock's own rate limit (kube-controller-manager gives its "leader-election" client --kube-api-qps/--kube-api-burst). */
  qps: number;
  burst: number;
  namespace: string;
  name: string;
  identity: string;
  /** The elector's renew deadline; each request may take half of it (at least 1 s), as client-go's leader-election client. */
  renewDeadlineMs: number;
}

/**
 * A LeaseLock on the API server. Its requests have a rate limiter of their own: a renewal queued
 * behind the informers' relists or a burst of Events could miss its deadline and end leadership.
 */
export class KubeLeaseLock implements LeaseLock {
  readonly identity: string;
  private readonly namespace: string;
  private readonly name: string;
  private readonly leases: ResourceClient<WireLease>;
  private readonly send: LeaseRequester;
  private lease: WireLease | undefined;

  constructor(options: KubeLeaseLockOptions) {
    this.identity = options.identity;
    this.namespace = options.namespace;
    this.name = options.name;
    const client = withRateLimit(options.client, options.qps, options.burst, "leader-election");
    this.leases = client.dynamic.resource<WireLease>(resources.leases, options.namespace);
    this.send = leaseRequester(client, Math.max(1000, options.renewDeadlineMs / 2));
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | null> {
    try {
      this.lease = await this.send({ method: "GET", path: this.leases.itemPath(this.name) }, signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.lease = undefined;
      return null;
    }
    const record = recordFromLeaseSpec(this.lease.spec);
    return { record, raw: rawLeaderElectionRecord(record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const lease: WireLease = {
      apiVersion: apiVersionOf(resources.leases),
      kind: "Lease",
      metadata: { name: this.name, namespace: this.namespace },
      spec: leaseSpecFromRecord(record),
    };
    this.lease = await this.send({ method: "POST", path: this.leases.collectionPath(), body: lease }, signal);
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease) throw new Error(`lease ${this.describe()} not initialized, call get or create first`);
    // The whole spec is replaced, as client-go does; metadata keeps the resourceVersion that guards the write.
    const lease: WireLease = { ...this.lease, apiVersion: apiVersionOf(resources.leases), kind: "Lease", spec: leaseSpecFromRecord(record) };
    this.lease = await this.send({ method: "PUT", path: this.leases.itemPath(this.name), body: lease }, signal);
  }
}
