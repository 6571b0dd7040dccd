// One replica's part in a shard ring. Membership is a Lease per replica, renewed like a leader's;
// the members alive are those whose Lease changed within the lease duration, as this process saw
// it. Every member computes the same desired owner for each slot from the slot table, the members
// and the namespaces (assignment.ts), and the slot table (slot-table.ts) records who actually
// holds each one. A slot that holds too many namespaces is cut in two in the table by its holder
// (or by anyone while it is free); the halves keep its holder, so a cut moves nothing by itself.
// The handover of a slot:
//   1. its holder sees that the slot belongs to another member, stops starting work in it, waits
//      for the work in flight (at most the drain timeout), then takes it out of the table;
//   2. the new owner, once its caches hold the slot's namespaces, writes itself into the table,
//      and only then acts on them.
// A holder that stops renewing is declared dead by deleting its Lease over the version last seen
// (a renewal in between makes the deletion fail); its slots are free from then on. A member acts
// on a namespace only while it holds the slot and renewed its Lease within the renew deadline, and
// it gives up every slot the moment it misses that deadline, so a member declared dead has stopped
// acting before anyone else starts (the deadline is shorter than the lease duration).
// A write that a member sent while it acted may still be on its way (held by a proxy, queued behind
// a slow API server) when the member stops acting: at the renew deadline, when it hands a slot over
// after the drain timeout, when it leaves. The member tells its letting-go listeners first, so that
// such writes are abandoned before anyone else can take the namespaces, and from then on lets no
// new write start there, though the table still names it until its release is written.
// A member whose Lease has not changed for two and a half retry periods is "silent": the others
// also plan as if it were gone and cache, only cache, the slots they would get then, so that once
// it is declared dead its slots are taken without waiting for their objects to be listed. Should
// it renew again, those slots leave the caches as a shrink of the share does.
import { type Clock, realClock } from "../clock/clock.ts";
import type { Logger } from "../log/logger.ts";
import { compareResourceVersions } from "../kube/resource-version.ts";
import { planSlotOwners } from "../sharding/assignment.ts";
import { type HashRange, sameRanges } from "../sharding/hash-range.ts";
import { namespaceHash, rangesHoldNamespace } from "../sharding/namespace-hash.ts";
import { maxSlotWeight, slotWeights, sortHashes, splitHeavySlots } from "../sharding/slot-splits.ts";
import { rangesOfSlots, slotIndexOf } from "../sharding/slots.ts";
import { MembershipLostError, type RingApi } from "./ring-api.ts";
import type { NamespaceOwnership, NamespaceVerdict } from "./namespace-ownership.ts";
import { applySplit, emptySlotTable, type SlotTable, slotCounts } from "./slot-table.ts";

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
  /** The namespaces that exist, undefined until known: shares are balanced over them. Call namespacesChanged() when they change. */
  namespaces: () => readonly string[] | undefined;
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
  /** `silent`: alive, but its Lease unchanged for two and a half retry periods; its would-be slots are cached ahead. */
  members: { name: string; alive: boolean; silent: boolean; slots: number }[];
  /** Slots in the table (256, more once crowded ones were split). */
  slots: number;
  held: number;
  draining: number;
  /** Slots cached only because silent members may be declared dead: this member would hold them then. */
  cachedAhead: number;
  ranges: readonly HashRange[];
  handovers: { taken: number; released: number };
}

/** Retry periods a new member only watches the ring before it computes its share. */
const joinGracePeriods = 2;

const defaultSuffix = () => Math.random().toString(16).slice(2, 10).padEnd(8, "0");

export class RingMember implements NamespaceOwnership {
  private readonly clock: Clock;
  private readonly members = new Map<string, ObservedMember>();
  private table: SlotTable = emptySlotTable();
  private tableVersion = "";
  private me = "";
  private myVersion = "";
  /** Monotonic send time of the last renewal that succeeded; undefined while not a member. */
  private renewedAt: number | undefined;
  /** Monotonic time this membership began. */
  private joinedAt = 0;
  /** Slots held, by start; only this member splits or frees them. */
  private readonly held = new Map<bigint, HashRange>();
  /** The held slots sorted, to find a namespace's. */
  private heldSorted: HashRange[] = [];
  /** Slots being handed over, by start: since when. No new work starts in them. */
  private readonly draining = new Map<bigint, number>();
  /** Held slots whose writes in flight were abandoned (drained past the timeout, or leaving): no write may start in them until the table frees them. */
  private readonly lettingGo = new Set<bigint>();
  /** Work in flight by namespace: a slot is handed over once none of its namespaces has any. */
  private readonly inFlight = new Map<string, number>();
  /** Holders whose Lease is known to be gone: their table entries are free. */
  private readonly goneHolders = new Set<string>();
  /**
   * Who should hold each slot, as the last step computed it over the table's slots then, and who
   * would if the silent members were gone (`withoutSilent`, empty while none is silent).
   */
  private plan: { slots: readonly HashRange[]; owners: readonly string[]; withoutSilent: readonly string[] } = { slots: [], owners: [], withoutSilent: [] };
  /** What the plan was made from: the table, then the members and the namespaces per slot. */
  private planned: { table: SlotTable | undefined; inputs: string } = { table: undefined, inputs: "" };
  private cachedRanges: readonly HashRange[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly rangeListeners = new Set<() => void>();
  private readonly lettingGoListeners = new Set<(lost: (namespace: string) => boolean) => void>();
  /** Fires at the renew deadline of the last renewal: writes in flight are abandoned then, even while a step is stuck on a slow request. */
  private deadlineTimer: { cancel(): void } | undefined;
  private readonly handovers = { taken: 0, released: 0 };
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
    const now = this.clock.monotonic();
    this.members.set(name, { resourceVersion, observedAt: now });
    this.goneHolders.delete(name);
    // A renewal of a member that was alive and not silent changes no plan: the step of the next retry
    // period sees it. Stepping at every renewal of every member made an idle ring's CPU grow with its size.
    const news = known === undefined || now - known.observedAt > this.silentAfterMs();
    if (news) this.poke();
  }

  /** A member Lease was deleted. */
  memberDeleted(name: string): void {
    this.members.delete(name);
    this.goneHolders.add(name);
    this.poke();
  }

  /** The slot table as the ring's informer saw it; a version older than the one this member last wrote or read is ignored. */
  observeTable(table: SlotTable, resourceVersion: string): void {
    if ((compareResourceVersions(resourceVersion, this.tableVersion) ?? 0) < 0) return;
    this.table = table;
    this.tableVersion = resourceVersion;
    this.poke();
  }

  /** The namespaces (options.namespaces) changed: shares may have to follow. */
  namespacesChanged(): void {
    this.poke();
  }

  // ---- what controllers, clients and informers ask

  /** Whether a write to `namespace` ("" for cluster-scoped objects) may be sent now. */
  holds(namespace: string): boolean {
    const slot = this.heldSlotOf(namespaceHash(namespace));
    return this.acting() && slot !== undefined && !this.lettingGo.has(slot.start);
  }

  verdict(namespace: string): NamespaceVerdict {
    const hash = namespaceHash(namespace);
    const slot = this.heldSlotOf(hash);
    if (this.acting() && slot !== undefined && !this.draining.has(slot.start)) return "act";
    // Cached ahead of a silent member's end counts as about to be held: work there waits aside, as
    // for a slot whose objects are being listed, and is dropped if that member renews after all.
    return this.me !== "" && (this.plannedOwner(hash) === this.me || this.ownerWithoutSilent(hash) === this.me) ? "wait" : "elsewhere";
  }

  begin(namespace: string): (() => void) | undefined {
    if (this.verdict(namespace) !== "act") return undefined;
    this.inFlight.set(namespace, (this.inFlight.get(namespace) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.inFlight.get(namespace) ?? 1) - 1;
      if (left > 0) this.inFlight.set(namespace, left);
      else this.inFlight.delete(namespace);
      if (this.draining.size > 0) this.poke();
    };
  }

  /** Called whenever verdicts may have changed (slots taken, draining or let go). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Called before this member stops acting on namespaces where writes it sent may still be on their
   * way, with which: they must be abandoned before another member can hold them. Returns the unsubscribe.
   */
  onLettingGo(listener: (lost: (namespace: string) => boolean) => void): () => void {
    this.lettingGoListeners.add(listener);
    return () => this.lettingGoListeners.delete(listener);
  }

  /** The namespace-hash ranges the informers should cache: the slots held, draining, about to be held, and cached ahead of silent members' end. */
  readonly cacheShare = {
    ranges: (): readonly HashRange[] => this.cachedRanges,
    onChange: (listener: () => void): (() => void) => {
      this.rangeListeners.add(listener);
      return () => this.rangeListeners.delete(listener);
    },
  };

  status(): RingMemberStatus {
    const now = this.clock.monotonic();
    const slots = slotCounts(this.table);
    const names = new Set([...this.members.keys(), ...slots.keys()]);
    const { owners, withoutSilent } = this.plan;
    return {
      ring: this.options.ring,
      member: this.me,
      members: [...names].sort().map((name) => ({ name, alive: this.alive(name, now), silent: this.silent(name, now), slots: slots.get(name) ?? 0 })),
      slots: this.table.slots.length,
      held: this.held.size,
      draining: this.draining.size,
      cachedAhead: this.me === "" ? 0 : withoutSilent.filter((owner, slot) => owner === this.me && owners[slot] !== this.me && !this.held.has(this.plan.slots[slot]!.start)).length,
      ranges: rangesOfSlots(this.held.values()),
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
    this.deadlineTimer?.cancel();
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
        this.renewed(sent);
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

  /**
   * A retry period, or less when another member turns silent or its Lease expires sooner: its slots
   * are cached ahead, or taken over, at that moment, not up to a period later.
   */
  private untilNextStep(): number {
    const now = this.clock.monotonic();
    let wait = this.options.retryPeriodMs;
    for (const [name, member] of this.members) {
      if (name === this.me) continue;
      for (const after of [this.silentAfterMs(), this.options.leaseDurationMs]) {
        const dueIn = member.observedAt + after - now;
        if (dueIn >= 0) wait = Math.min(wait, dueIn + 1);
      }
    }
    return wait;
  }

  private async step(stop: AbortSignal): Promise<void> {
    this.again = false;
    if (!(await this.keepMembership(stop))) return;
    // Replicas started together (a Deployment's) see one another within a couple of retry periods;
    // computing a share before that would have the first of them cache, and list, the whole cluster.
    if (this.clock.monotonic() - this.joinedAt < joinGracePeriods * this.options.retryPeriodMs) return;
    const namespaces = this.options.namespaces();
    // Until the namespaces are known a plan would weigh every slot as empty.
    if (namespaces === undefined) return;
    const hashes = sortHashes(new Set(["", ...namespaces].map(namespaceHash)));
    const members = this.aliveMembers();
    await this.splitCrowdedSlots(hashes, members.length);
    const now = this.clock.monotonic();
    this.replan(members, members.filter((name) => this.silent(name, now)), hashes);
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
      this.renewed(sent);
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

  /** A renewal sent at `sent` succeeded (or the membership began then): acting until the renew deadline after it. */
  private renewed(sent: number): void {
    this.renewedAt = sent;
    this.deadlineTimer?.cancel();
    this.deadlineTimer = this.clock.setTimer(sent + this.options.renewDeadlineMs + 1 - this.clock.monotonic(), () => {
      if (this.acting()) return;
      this.letGo(() => true);
      this.poke();
    });
  }

  /**
   * Ahead of leaving: the writes in flight everywhere are abandoned, and no new one starts, while
   * the slots still wait to be handed over. For work abandoned at a shutdown that may still try to write.
   */
  stopWriting(): void {
    this.abandonWrites(this.held.keys(), () => true);
  }

  /** Abandons the writes in flight in `slots` (their namespaces: `lost`), and starts none there while the table still names this member. */
  private abandonWrites(slots: Iterable<bigint>, lost: (namespace: string) => boolean): void {
    for (const start of slots) this.lettingGo.add(start);
    this.letGo(lost);
  }

  /** Tells the letting-go listeners which namespaces this member stops acting on. */
  private letGo(lost: (namespace: string) => boolean): void {
    for (const listener of this.lettingGoListeners) listener(lost);
  }

  /** Stops acting on everything at once; the next step joins again under a new name. */
  private loseMembership(why: string): void {
    const { logger } = this.options;
    logger.warn({ ring: this.options.ring, member: this.me, slots: this.held.size, reason: why }, "left the shard ring; no longer acting on its namespaces");
    this.letGo(() => true);
    this.deadlineTimer?.cancel();
    this.setHeld([]);
    this.draining.clear();
    this.me = "";
    this.renewedAt = undefined;
    this.options.observer?.membershipLost();
    this.changed();
    // The Lease is left to expire, not deleted: a write sent before the renew deadline may still be
    // on its way (a proxy holding it), and the others take the slots only at the Lease's end.
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

  /**
   * How long another member's Lease may stay unchanged before it counts as silent: two renewals
   * missed in a row. One that failed and was retried a period later is not enough (half a period
   * is left for the retry's latency). At the defaults (2 s, lease 15 s) that is 5 s, leaving 10 s to
   * list its namespaces before it can be declared dead; 100,000 Pods without the API server's
   * filter took about 8 s.
   */
  private silentAfterMs(): number {
    return 2.5 * this.options.retryPeriodMs;
  }

  /** Alive, but its Lease unchanged for longer than it should be: its slots may have to be taken over soon. */
  private silent(name: string, now: number): boolean {
    const member = this.members.get(name);
    return name !== this.me && member !== undefined && this.alive(name, now) && now - member.observedAt > this.silentAfterMs();
  }

  /** The held slot that holds `hash`; undefined: none. */
  private heldSlotOf(hash: bigint): HashRange | undefined {
    if (this.heldSorted.length === 0) return undefined;
    const slot = this.heldSorted[slotIndexOf(this.heldSorted, hash)]!;
    return slot.start <= hash && hash < slot.end ? slot : undefined;
  }

  private setHeld(slots: Iterable<HashRange>): void {
    this.held.clear();
    for (const slot of slots) this.held.set(slot.start, slot);
    for (const start of this.lettingGo) if (!this.held.has(start)) this.lettingGo.delete(start);
    this.heldSorted = [...this.held.values()].sort((a, b) => (a.start < b.start ? -1 : 1));
  }

  /**
   * Plans who should hold each slot, and who would without the silent members (the plan the others
   * make once those are declared dead, if nothing else changes meanwhile), unless nothing the plans
   * depend on changed since the last step: most steps are Lease renewals, and planning costs a few
   * hundred 64-bit hashes.
   */
  private replan(members: readonly string[], silent: readonly string[], hashes: readonly bigint[]): void {
    const { slots, holders } = this.table;
    const weights = slotWeights(slots, hashes);
    const inputs = `${members.join(",")}|${silent.join(",")}|${weights.join(",")}`;
    if (this.planned.table === this.table && this.planned.inputs === inputs) return;
    const planAmong = (alive: readonly string[]) =>
      planSlotOwners({ slots, holders: holders.map((h) => (h !== undefined && alive.includes(h) ? h : undefined)), members: alive, weights });
    const survivors = members.filter((name) => !silent.includes(name));
    this.plan = { slots, owners: planAmong(members), withoutSilent: silent.length > 0 ? planAmong(survivors) : [] };
    this.planned = { table: this.table, inputs };
  }

  /** Who should hold the slot of `hash`, by the last plan. */
  private plannedOwner(hash: bigint): string | undefined {
    return this.plan.slots.length === 0 ? undefined : this.plan.owners[slotIndexOf(this.plan.slots, hash)];
  }

  /** Who would hold the slot of `hash` once the silent members are gone; undefined while none is silent. */
  private ownerWithoutSilent(hash: bigint): string | undefined {
    return this.plan.withoutSilent.length === 0 ? undefined : this.plan.withoutSilent[slotIndexOf(this.plan.slots, hash)];
  }

  /**
   * Cuts the slots that hold more namespaces than a balanced share allows (slot-splits.ts), among those
   * this member holds and keeps and the free ones: no one else's slot changes under it.
   */
  private async splitCrowdedSlots(hashes: readonly bigint[], members: number): Promise<void> {
    const before = this.table;
    const splittable = (index: number) => {
      const holder = before.holders[index];
      const start = before.slots[index]!.start;
      return holder === undefined || this.goneHolders.has(holder) || (holder === this.me && this.held.has(start) && !this.draining.has(start));
    };
    const split = splitHeavySlots(before.slots, hashes, maxSlotWeight(hashes.length, members), splittable);
    if (!split) return;
    // writeTable applies the change to the table it holds now, which is `before`: nothing awaited since.
    if (!(await this.writeTable(() => applySplit(before, split)))) return;
    this.setHeld(split.slots.filter((_, i) => this.held.has(before.slots[split.origin[i]!]!.start)));
    this.options.logger.info({ ring: this.options.ring, slots: split.slots.length - before.slots.length }, "split crowded shard slots");
    this.changed();
  }

  private updateCachedRanges(): void {
    const slots = [...this.held.values()];
    const { owners, withoutSilent } = this.plan;
    this.plan.slots.forEach((slot, index) => {
      if (owners[index] === this.me || withoutSilent[index] === this.me) slots.push(slot);
    });
    const ranges = rangesOfSlots(slots);
    if (sameRanges(ranges, this.cachedRanges)) return;
    this.cachedRanges = ranges;
    for (const listener of this.rangeListeners) listener();
    // Namespaces about to be held may have become ones held elsewhere (a silent member renewed): work waiting aside there is dropped.
    this.changed();
  }

  /** Starts draining the slots that belong elsewhere now, and lets go of those drained. */
  private async handOver(): Promise<void> {
    const now = this.clock.monotonic();
    let started = false;
    for (const [start] of this.held) {
      const owner = this.plannedOwner(start);
      if (owner !== this.me && !this.draining.has(start)) {
        this.draining.set(start, now);
        started = true;
      }
      if (owner === this.me && this.draining.delete(start)) {
        this.lettingGo.delete(start);
        started = true;
      }
    }
    if (started) this.changed();
    const busy = (slot: HashRange) => [...this.inFlight.keys()].some((namespace) => rangesHoldNamespace([slot], namespace));
    const drained = new Set([...this.draining].filter(([start, since]) => !busy(this.held.get(start)!) || now - since >= this.options.drainTimeoutMs).map(([start]) => start));
    if (drained.size === 0) return;
    // Work still in flight past the drain timeout is abandoned: its writes must not land once the slot is free.
    const drainedRanges = rangesOfSlots([...drained].map((start) => this.held.get(start)!));
    this.abandonWrites(drained, (namespace) => rangesHoldNamespace(drainedRanges, namespace));
    const released = await this.writeTable((table) => this.withoutMine(table, drained));
    if (!released) return;
    this.setHeld([...this.held.values()].filter((slot) => !drained.has(slot.start)));
    for (const start of drained) this.draining.delete(start);
    this.handovers.released += drained.size;
    this.options.observer?.slotsReleased(drained.size);
    this.options.logger.info({ ring: this.options.ring, slots: drained.size }, "handed shard slots over");
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
    this.table.slots.forEach((slot, index) => {
      const holder = this.table.holders[index];
      if (this.plannedOwner(slot.start) === this.me && holder !== undefined && holder !== this.me && !this.goneHolders.has(holder) && !this.members.has(holder)) unseen.add(holder);
    });
    // Not in this cache: gone, or created a moment ago; etcd decides.
    for (const holder of unseen) if (!(await this.options.api.memberExists(holder))) this.goneHolders.add(holder);
  }

  /** Writes this member into the free slots it should hold whose objects are cached by now. */
  private async take(): Promise<void> {
    const free = (holder: string | undefined) => holder === undefined || this.goneHolders.has(holder);
    const { slots, holders } = this.table;
    const ready = new Set(
      slots.filter((slot, index) => this.plannedOwner(slot.start) === this.me && !this.held.has(slot.start) && free(holders[index]) && this.options.cached([slot])).map((slot) => slot.start),
    );
    if (ready.size === 0) return;
    const taken = await this.writeTable((table) => ({
      slots: table.slots,
      holders: table.holders.map((holder, index) => (ready.has(table.slots[index]!.start) && free(holder) ? this.me : holder)),
    }));
    if (!taken) return;
    const got = taken.slots.filter((slot, index) => ready.has(slot.start) && taken.holders[index] === this.me);
    this.setHeld([...this.held.values(), ...got]);
    this.handovers.taken += got.length;
    this.options.observer?.slotsTaken(got.length);
    this.options.logger.info({ ring: this.options.ring, slots: got.length, held: this.held.size }, "took shard slots");
    this.changed();
  }

  /** `table` with the slots of `starts` this member holds freed. */
  private withoutMine(table: SlotTable, starts: ReadonlySet<bigint>): SlotTable {
    return { slots: table.slots, holders: table.holders.map((holder, index) => (holder === this.me && starts.has(table.slots[index]!.start) ? undefined : holder)) };
  }

  /** Writes `change` of the table by compare-and-swap; on a conflict reads it again and retries next step. */
  private async writeTable(change: (table: SlotTable) => SlotTable): Promise<SlotTable | undefined> {
    if (!this.acting()) return undefined;
    const next = change(this.table);
    const version = this.tableVersion === "" ? undefined : await this.options.api.writeTable(next, this.tableVersion);
    if (version === undefined) {
      const fresh = await this.options.api.readTable();
      this.observeTable(fresh.table, fresh.resourceVersion);
      return undefined;
    }
    this.table = next;
    this.tableVersion = version;
    return next;
  }

  /** On the way out: nothing new starts, every slot is let go, and the Lease is deleted, so the others take over at once. */
  private async leave(): Promise<void> {
    if (this.me === "") return;
    const { api, logger } = this.options;
    try {
      if (this.held.size > 0 && this.acting()) {
        const mine = new Set(this.held.keys());
        for (const start of mine) this.draining.set(start, this.clock.monotonic());
        this.stopWriting();
        this.changed();
        for (let attempt = 0; attempt < 5; attempt++) {
          const released = await this.writeTable((table) => this.withoutMine(table, mine));
          if (released) break;
        }
      }
      await api.deleteMember(this.me, this.myVersion);
      logger.info({ ring: this.options.ring, member: this.me }, "left the shard ring");
    } catch (err) {
      logger.warn({ err: errorText(err) }, "could not leave the shard ring cleanly; the others take over once its Lease expires");
    } finally {
      this.setHeld([]);
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
