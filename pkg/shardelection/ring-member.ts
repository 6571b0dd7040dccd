// One replica's part in a shard ring. Membership is a Lease per replica, renewed like a leader's;
// the members alive are those whose Lease changed within the lease duration, as this process saw
// it. Every member computes the same desired owner for each slot (assignment.ts), and the slot
// table (slot-table.ts) records who actually holds each one. The handover of a slot:
//   1. its holder sees that the slot belongs to another member, stops starting work in it, waits
//      for the work in flight (at most the drain timeout), then takes it out of the table;
//   2. the new owner, once its caches hold the slot's namespaces, writes itself into the table,
//      and only then acts on them.
// A holder that stops renewing is declared dead by deleting its Lease over the version last seen
// (a renewal in between makes the deletion fail); its slots are free from then on. A member acts
// on a namespace only while it holds the slot and renewed its Lease within the renew deadline, and
// it gives up every slot the moment it misses that deadline, so a member declared dead has stopped
// acting before anyone else starts (the deadline is shorter than the lease duration).
import { type Clock, realClock } from "../clock/clock.ts";
import type { Logger } from "../log/logger.ts";
import { assignSlots } from "../sharding/assignment.ts";
import { type HashRange, sameRanges } from "../sharding/hash-range.ts";
import { namespaceSlot, rangesOfSlots, slotCount } from "../sharding/slots.ts";
import { MembershipLostError, type RingApi } from "./ring-api.ts";
import type { NamespaceOwnership, NamespaceVerdict } from "./namespace-ownership.ts";
import { emptySlotTable, type SlotHolders } from "./slot-table.ts";

export interface RingMemberOptions {
  api: RingApi;
  /** The ring's name, the prefix of every member Lease's name. */
  ring: string;
  /** This process (hostname_uuid), for logs and the Lease's holderIdentity. */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** How long a leaving holder waits for the work in flight in a slot before it lets the slot go anyway. */
  drainTimeoutMs: number;
  /** Whether every sharded cache holds `ranges` by now: a slot is taken only once its objects are cached. */
  cached: (ranges: readonly HashRange[]) => boolean;
  logger: Logger;
  clock?: Clock;
  /** A random member-name suffix; tests pass their own. */
  suffix?: () => string;
  /** Told of each slot handed over or taken. */
  observer?: RingObserver;
}

export interface RingObserver {
  slotsTaken(count: number): void;
  slotsReleased(count: number): void;
  membershipLost(): void;
}

interface ObservedMember {
  resourceVersion: string;
  /** Monotonic time of the last change this process saw. */
  observedAt: number;
}

export interface RingMemberStatus {
  ring: string;
  /** This member's Lease ("" between memberships). */
  member: string;
  members: { name: string; alive: boolean; slots: number }[];
  held: number;
  draining: number;
  ranges: readonly HashRange[];
  handovers: { taken: number; released: number };
}

/** Retry periods a new member only watches the ring before it computes its share. */
const joinGracePeriods = 2;

const defaultSuffix = () => Math.random().toString(16).slice(2, 10).padEnd(8, "0");

export class RingMember implements NamespaceOwnership {
  private readonly clock: Clock;
  private readonly members = new Map<string, ObservedMember>();
  private table: SlotHolders = emptySlotTable();
  private tableVersion = "";
  private me = "";
  private myVersion = "";
  /** Monotonic send time of the last renewal that succeeded; undefined while not a member. */
  private renewedAt: number | undefined;
  /** Monotonic time this membership began. */
  private joinedAt = 0;
  private readonly held = new Set<number>();
  /** Slots being handed over: since when. No new work starts in them. */
  private readonly draining = new Map<number, number>();
  private readonly inFlight = new Map<number, number>();
  /** Holders whose Lease is known to be gone: their table entries are free. */
  private readonly goneHolders = new Set<string>();
  private desired: string[] = [];
  private cachedRanges: readonly HashRange[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly rangeListeners = new Set<() => void>();
  private readonly handovers = { taken: 0, released: 0 };
  private stepping: Promise<void> | undefined;
  private again = false;
  private wake: (() => void) | undefined;

  constructor(private readonly options: RingMemberOptions) {
    this.clock = options.clock ?? realClock;
  }

  // ---- what the informers and the watch on the ring's Leases tell it

  /** A member Lease as the ring's informer saw it (added or changed). */
  observeMember(name: string, resourceVersion: string): void {
    const known = this.members.get(name);
    if (known?.resourceVersion === resourceVersion) return;
    this.members.set(name, { resourceVersion, observedAt: this.clock.monotonic() });
    this.goneHolders.delete(name);
    this.poke();
  }

  /** A member Lease was deleted. */
  memberDeleted(name: string): void {
    this.members.delete(name);
    this.goneHolders.add(name);
    this.poke();
  }

  /** The slot table as the ring's informer saw it. */
  observeTable(holders: SlotHolders, resourceVersion: string): void {
    this.table = holders;
    this.tableVersion = resourceVersion;
    this.poke();
  }

  // ---- what controllers, clients and informers ask

  /** Whether a write to `namespace` ("" for cluster-scoped objects) may be sent now. */
  holds(namespace: string): boolean {
    return this.acting() && this.held.has(namespaceSlot(namespace));
  }

  verdict(namespace: string): NamespaceVerdict {
    const slot = namespaceSlot(namespace);
    if (this.acting() && this.held.has(slot) && !this.draining.has(slot)) return "act";
    return this.me !== "" && this.desired[slot] === this.me ? "wait" : "elsewhere";
  }

  begin(namespace: string): (() => void) | undefined {
    if (this.verdict(namespace) !== "act") return undefined;
    const slot = namespaceSlot(namespace);
    this.inFlight.set(slot, (this.inFlight.get(slot) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.inFlight.get(slot) ?? 1) - 1;
      if (left > 0) this.inFlight.set(slot, left);
      else this.inFlight.delete(slot);
      if (this.draining.has(slot)) this.poke();
    };
  }

  /** Called whenever verdicts may have changed (slots taken, draining or let go). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The namespace-hash ranges the informers should cache: the slots held, draining, and about to be held. */
  readonly cacheShare = {
    ranges: (): readonly HashRange[] => this.cachedRanges,
    onChange: (listener: () => void): (() => void) => {
      this.rangeListeners.add(listener);
      return () => this.rangeListeners.delete(listener);
    },
  };

  status(): RingMemberStatus {
    const now = this.clock.monotonic();
    const slots = new Map<string, number>();
    for (const holder of this.table) if (holder !== undefined) slots.set(holder, (slots.get(holder) ?? 0) + 1);
    const names = new Set([...this.members.keys(), ...slots.keys()]);
    return {
      ring: this.options.ring,
      member: this.me,
      members: [...names].sort().map((name) => ({ name, alive: this.alive(name, now), slots: slots.get(name) ?? 0 })),
      held: this.held.size,
      draining: this.draining.size,
      ranges: rangesOfSlots(this.held),
      handovers: { ...this.handovers },
    };
  }

  // ---- the loop

  /** Joins, keeps the membership and the slots up to date until `stop` aborts, then hands every slot over and leaves. */
  async run(stop: AbortSignal): Promise<void> {
    const renewing = this.keepRenewing(stop);
    while (!stop.aborted) {
      await this.step(stop).catch((err: unknown) => this.options.logger.warn({ err: errorText(err) }, "shard ring step failed; retrying"));
      await this.nextStep(stop);
    }
    await renewing;
    await this.leave();
  }

  /**
   * Renews this member's Lease every retry period, in a loop of its own: a step waiting on slow table
   * writes or lookups must not hold a renewal back past the renew deadline.
   */
  private async keepRenewing(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      await this.clock.sleep(this.options.retryPeriodMs, stop).catch(() => undefined);
      const name = this.me;
      if (stop.aborted || name === "") continue;
      const sent = this.clock.monotonic();
      try {
        const version = await this.options.api.renewMember(name, this.myVersion, stop);
        // A renewal answered after the membership ended (and maybe began again under another name) counts for nothing.
        if (this.me !== name) continue;
        this.myVersion = version;
        this.renewedAt = sent;
        this.members.set(name, { resourceVersion: version, observedAt: sent });
      } catch (err) {
        if (this.me !== name || stop.aborted) continue;
        if (err instanceof MembershipLostError) this.loseMembership(err.message);
        else this.options.logger.debug({ err: errorText(err) }, "shard Lease renewal failed; retrying");
      }
    }
  }

  /** Wakes the loop; steps never overlap, and a poke during a step runs one more. */
  private poke(): void {
    this.again = true;
    this.wake?.();
  }

  private nextStep(stop: AbortSignal): Promise<void> {
    if (this.again) {
      this.again = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(this.untilNextStep(), done);
      const onAbort = () => done();
      stop.addEventListener("abort", onAbort, { once: true });
      this.wake = done;
      function done() {
        timer.cancel();
        stop.removeEventListener("abort", onAbort);
        resolve();
      }
    });
  }

  /** A retry period, or less when another member's Lease expires sooner: its slots are taken over at that moment, not up to a period later. */
  private untilNextStep(): number {
    const now = this.clock.monotonic();
    let wait = this.options.retryPeriodMs;
    for (const [name, member] of this.members) {
      const expiresIn = member.observedAt + this.options.leaseDurationMs - now;
      if (name !== this.me && expiresIn >= 0) wait = Math.min(wait, expiresIn + 1);
    }
    return wait;
  }

  private async step(stop: AbortSignal): Promise<void> {
    this.again = false;
    if (!(await this.keepMembership(stop))) return;
    // Replicas started together (a Deployment's) see one another within a couple of retry periods;
    // computing a share before that would have the first of them cache, and list, the whole cluster.
    if (this.clock.monotonic() - this.joinedAt < joinGracePeriods * this.options.retryPeriodMs) return;
    this.desired = assignSlots(this.aliveMembers());
    this.updateCachedRanges();
    await this.handOver();
    await this.declareDeadHolders();
    await this.take();
  }

  /** Joins when not a member, and ends a membership whose renewals stopped; false while not a member. */
  private async keepMembership(stop: AbortSignal): Promise<boolean> {
    const { api, renewDeadlineMs, logger } = this.options;
    if (this.me === "") {
      const name = `${this.options.ring}-${this.options.suffix?.() ?? defaultSuffix()}`;
      const sent = this.clock.monotonic();
      this.myVersion = await api.createMember(name, stop);
      this.me = name;
      this.renewedAt = sent;
      this.joinedAt = sent;
      this.members.set(name, { resourceVersion: this.myVersion, observedAt: sent });
      logger.info({ ring: this.options.ring, member: name }, "joined the shard ring");
      return true;
    }
    if (this.renewedAt !== undefined && this.clock.monotonic() - this.renewedAt > renewDeadlineMs) {
      this.loseMembership("the shard Lease was not renewed within the renew deadline");
      return false;
    }
    return true;
  }

  /** Stops acting on everything at once; the next step joins again under a new name. */
  private loseMembership(why: string): void {
    const { logger, api } = this.options;
    logger.warn({ ring: this.options.ring, member: this.me, slots: this.held.size, reason: why }, "left the shard ring; no longer acting on its namespaces");
    const gone = this.me;
    const version = this.myVersion;
    this.held.clear();
    this.draining.clear();
    this.me = "";
    this.renewedAt = undefined;
    this.options.observer?.membershipLost();
    this.changed();
    // Its table entries are freed by whoever deletes this Lease; deleting it here only speeds that up.
    void api.deleteMember(gone, version).catch(() => undefined);
  }

  private acting(): boolean {
    return this.renewedAt !== undefined && this.clock.monotonic() - this.renewedAt <= this.options.renewDeadlineMs;
  }

  private alive(name: string, now: number): boolean {
    if (name === this.me) return this.acting();
    const member = this.members.get(name);
    return member !== undefined && now - member.observedAt <= this.options.leaseDurationMs;
  }

  private aliveMembers(): string[] {
    const now = this.clock.monotonic();
    return [...this.members.keys()].filter((name) => this.alive(name, now)).sort();
  }

  private updateCachedRanges(): void {
    const slots = new Set<number>([...this.held, ...this.draining.keys()]);
    this.desired.forEach((owner, slot) => {
      if (owner === this.me) slots.add(slot);
    });
    const ranges = rangesOfSlots(slots);
    if (sameRanges(ranges, this.cachedRanges)) return;
    this.cachedRanges = ranges;
    for (const listener of this.rangeListeners) listener();
  }

  /** Starts draining the slots that belong elsewhere now, and lets go of those drained. */
  private async handOver(): Promise<void> {
    const now = this.clock.monotonic();
    let started = false;
    for (const slot of this.held) {
      const owner = this.desired[slot];
      if (owner !== this.me && !this.draining.has(slot)) {
        this.draining.set(slot, now);
        started = true;
      }
      if (owner === this.me && this.draining.delete(slot)) started = true;
    }
    if (started) this.changed();
    const drained = [...this.draining].filter(([slot, since]) => !this.inFlight.has(slot) || now - since >= this.options.drainTimeoutMs).map(([slot]) => slot);
    if (drained.length === 0) return;
    const released = await this.writeTable((holders) => {
      for (const slot of drained) if (holders[slot] === this.me) holders[slot] = undefined;
    });
    if (!released) return;
    for (const slot of drained) {
      this.held.delete(slot);
      this.draining.delete(slot);
    }
    this.handovers.released += drained.length;
    this.options.observer?.slotsReleased(drained.length);
    this.options.logger.info({ ring: this.options.ring, slots: drained.length }, "handed shard slots over");
    this.changed();
  }

  /**
   * Deletes the Leases of members that stopped renewing (a Lease left by a process that died, or by a join
   * whose answer was lost, would otherwise stay), and finds out about holders of slots this member should
   * have whose Lease it has not seen.
   */
  private async declareDeadHolders(): Promise<void> {
    const now = this.clock.monotonic();
    for (const [name, member] of [...this.members]) {
      if (name === this.me || now - member.observedAt <= this.options.leaseDurationMs) continue;
      if (await this.options.api.deleteMember(name, member.resourceVersion)) {
        this.options.logger.info({ ring: this.options.ring, member: name }, "declared a shard ring member dead: its Lease expired");
        this.members.delete(name);
        this.goneHolders.add(name);
      }
    }
    const unseen = new Set<string>();
    this.desired.forEach((owner, slot) => {
      const holder = this.table[slot];
      if (owner === this.me && holder !== undefined && holder !== this.me && !this.goneHolders.has(holder) && !this.members.has(holder)) unseen.add(holder);
    });
    // Not in this cache: gone, or created a moment ago; etcd decides.
    for (const holder of unseen) if (!(await this.options.api.memberExists(holder))) this.goneHolders.add(holder);
  }

  /** Writes this member into the free slots it should hold whose objects are cached by now. */
  private async take(): Promise<void> {
    const free = (holder: string | undefined) => holder === undefined || this.goneHolders.has(holder);
    const wanted: number[] = [];
    for (let slot = 0; slot < slotCount; slot++) {
      if (this.desired[slot] === this.me && !this.held.has(slot) && free(this.table[slot])) wanted.push(slot);
    }
    const ready = wanted.filter((slot) => this.options.cached(rangesOfSlots([slot])));
    if (ready.length === 0) return;
    const taken = await this.writeTable((holders) => {
      for (const slot of ready) if (free(holders[slot])) holders[slot] = this.me;
    });
    if (!taken) return;
    const got = ready.filter((slot) => taken[slot] === this.me);
    for (const slot of got) this.held.add(slot);
    this.handovers.taken += got.length;
    this.options.observer?.slotsTaken(got.length);
    this.options.logger.info({ ring: this.options.ring, slots: got.length, held: this.held.size }, "took shard slots");
    this.changed();
  }

  /** Applies `change` to the table by compare-and-swap; on a conflict reads it again and retries next step. */
  private async writeTable(change: (holders: (string | undefined)[]) => void): Promise<SlotHolders | undefined> {
    if (!this.acting()) return undefined;
    const holders = this.table.slice();
    change(holders);
    const version = this.tableVersion === "" ? undefined : await this.options.api.writeTable(holders, this.tableVersion);
    if (version === undefined) {
      const fresh = await this.options.api.readTable();
      this.observeTable(fresh.holders, fresh.resourceVersion);
      return undefined;
    }
    this.table = holders;
    this.tableVersion = version;
    return holders;
  }

  /** On the way out: nothing new starts, every slot is let go, and the Lease is deleted, so the others take over at once. */
  private async leave(): Promise<void> {
    if (this.me === "") return;
    const { api, logger } = this.options;
    try {
      if (this.held.size > 0 && this.acting()) {
        const mine = [...this.held];
        for (const slot of mine) this.draining.set(slot, this.clock.monotonic());
        this.changed();
        for (let attempt = 0; attempt < 5; attempt++) {
          const released = await this.writeTable((holders) => {
            for (const slot of mine) if (holders[slot] === this.me) holders[slot] = undefined;
          });
          if (released) break;
        }
      }
      await api.deleteMember(this.me, this.myVersion);
      logger.info({ ring: this.options.ring, member: this.me }, "left the shard ring");
    } catch (err) {
      logger.warn({ err: errorText(err) }, "could not leave the shard ring cleanly; the others take over once its Lease expires");
    } finally {
      this.held.clear();
      this.draining.clear();
      this.me = "";
      this.renewedAt = undefined;
      this.changed();
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
