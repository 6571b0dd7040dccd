// An in-memory Lease shared by several candidates, with the API server's optimistic concurrency:
// each lock writes over the version it read or wrote last, and a stale version is a 409 conflict.
// Tests can make a lock's requests fail or hang, and can slip a foreign write in before an update.
// `elapse` drives the candidates' fake clocks.
import type { FakeClock } from "../../pkg/clock/fake-clock.ts";
import { ApiError } from "../../pkg/kube/errors.ts";
import {
  type LeaderElectionRecord,
  type LeaseLock,
  type ObservedLeaderElectionRecord,
  rawLeaderElectionRecord,
} from "../../pkg/leaderelection/lease-lock.ts";

const leasePath = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/test-lease";
const stepMs = 100;

export interface StoredLease {
  record: LeaderElectionRecord;
  resourceVersion: number;
}

export interface LeaseWrite {
  by: string;
  verb: "create" | "update";
  record: LeaderElectionRecord;
}

/** The API server's copy of the Lease. */
export class FakeLeaseStore {
  lease: StoredLease | undefined;
  /** Every successful write, in order. */
  readonly writes: LeaseWrite[] = [];
  private lastVersion = 0;

  /** Stores a new version of the Lease; tests call it directly to play another writer. */
  write(by: string, verb: LeaseWrite["verb"], record: LeaderElectionRecord): StoredLease {
    this.lease = { record: { ...record }, resourceVersion: ++this.lastVersion };
    this.writes.push({ by, verb, record: { ...record } });
    return this.lease;
  }
}

export type RequestBehaviour = "answer" | "fail" | "hang";

export class FakeLeaseLock implements LeaseLock {
  /** "fail": every request throws a 503; "hang": requests never answer until their signal aborts. */
  behaviour: RequestBehaviour = "answer";
  /** Runs once, just before the next update is checked against the store: the place for a racing writer. */
  beforeNextUpdate: (() => void) | undefined;
  readonly calls = { get: 0, create: 0, update: 0 };
  private seenVersion: number | undefined;

  constructor(
    readonly store: FakeLeaseStore,
    readonly identity: string,
  ) {}

  describe(): string {
    return "kube-system/test-lease";
  }

  async get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | null> {
    this.calls.get++;
    await this.respond("GET", signal);
    const lease = this.store.lease;
    this.seenVersion = lease?.resourceVersion;
    if (!lease) return null;
    return { record: { ...lease.record }, raw: rawLeaderElectionRecord(lease.record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.calls.create++;
    await this.respond("POST", signal);
    if (this.store.lease) throw new ApiError(409, "AlreadyExists", "leases.coordination.k8s.io already exists", "POST", leasePath);
    this.seenVersion = this.store.write(this.identity, "create", record).resourceVersion;
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.calls.update++;
    await this.respond("PUT", signal);
    const racingWrite = this.beforeNextUpdate;
    this.beforeNextUpdate = undefined;
    racingWrite?.();
    if (this.seenVersion === undefined) throw new Error("lease not initialized, call get or create first");
    if (!this.store.lease) throw new ApiError(404, "NotFound", "leases.coordination.k8s.io not found", "PUT", leasePath);
    if (this.store.lease.resourceVersion !== this.seenVersion) {
      throw new ApiError(409, "Conflict", "the object has been modified; please apply your changes to the latest version and try again", "PUT", leasePath);
    }
    this.seenVersion = this.store.write(this.identity, "update", record).resourceVersion;
  }

  private respond(method: string, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.behaviour === "fail") {
      return Promise.reject(new ApiError(503, "ServiceUnavailable", "the server is currently unable to handle the request", method, leasePath));
    }
    if (this.behaviour === "answer") return Promise.resolve();
    return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
  }
}

/**
 * Moves the candidates' clocks forward together in 100 ms steps. Between steps every pending
 * promise settles, so an attempt's chain of lock calls finishes before the next timer is due
 * (FakeClock.advance alone flushes only a few microtask turns).
 */
export async function elapse(ms: number, ...clocks: FakeClock[]): Promise<void> {
  for (let left = ms; left > 0; left -= stepMs) {
    for (const clock of clocks) await clock.advance(Math.min(stepMs, left));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Like `elapse`, but stops at the first step after which `done()` holds; returns the time taken, or undefined. */
export async function elapseUntil(done: () => boolean, maxMs: number, ...clocks: FakeClock[]): Promise<number | undefined> {
  for (let spent = 0; spent <= maxMs; spent += stepMs) {
    if (done()) return spent;
    await elapse(stepMs, ...clocks);
  }
  return undefined;
}
