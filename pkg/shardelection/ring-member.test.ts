import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { silentLogger } from "../log/logger.ts";
import { type HashRange, intersectRanges, normalizeRanges, subtractRanges } from "../sharding/hash-range.ts";
import { rootSlotCount, rootSlots } from "../sharding/slots.ts";
import { namespaceHash, rangesHoldNamespace } from "../sharding/namespace-hash.ts";
import { MembershipLostError, type RingApi, type SlotTableVersion } from "./ring-api.ts";
import { RingMember } from "./ring-member.ts";
import { emptySlotTable, holderOfNamespace, type SlotTable } from "./slot-table.ts";

/** The API server's part, in memory: Leases with resourceVersions, and the table's compare-and-swap. Tells every member of each change, as the ring's informer does. */
class FakeRing implements RingApi {
  private version = 0;
  readonly leases = new Map<string, string>();
  table: SlotTableVersion = { table: emptySlotTable(), resourceVersion: "0" };
  readonly watchers: RingMember[] = [];

  private next(): string {
    return String(++this.version);
  }

  /** The table version each member was told last: an informer tells each version once. */
  private readonly toldTable = new Map<RingMember, string>();

  private tell(): void {
    for (const member of this.watchers) {
      for (const [name, version] of this.leases) member.observeMember(name, version);
      if (this.toldTable.get(member) === this.table.resourceVersion) continue;
      this.toldTable.set(member, this.table.resourceVersion);
      member.observeTable(this.table.table, this.table.resourceVersion);
    }
  }

  async createMember(name: string): Promise<string> {
    const version = this.next();
    this.leases.set(name, version);
    this.tell();
    return version;
  }

  async renewMember(name: string, resourceVersion: string): Promise<string> {
    if (this.leases.get(name) !== resourceVersion) throw new MembershipLostError(name);
    const version = this.next();
    this.leases.set(name, version);
    this.tell();
    return version;
  }

  async deleteMember(name: string, resourceVersion: string | undefined): Promise<boolean> {
    const current = this.leases.get(name);
    if (current === undefined) return true;
    if (resourceVersion !== undefined && current !== resourceVersion) return false;
    this.leases.delete(name);
    for (const member of this.watchers) member.memberDeleted(name);
    return true;
  }

  async memberExists(name: string): Promise<boolean> {
    return this.leases.has(name);
  }

  async readTable(): Promise<SlotTableVersion> {
    return this.table;
  }

  async writeTable(table: SlotTable, resourceVersion: string): Promise<string | undefined> {
    if (resourceVersion !== this.table.resourceVersion) return undefined;
    this.table = { table, resourceVersion: this.next() };
    this.tell();
    return this.table.resourceVersion;
  }
}

const lease = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 1000 };
/** A new member's two retry periods of watching, and its next step: steps come at its retry period, not at every renewal it sees. */
const afterJoinGrace = 2500;

/** One member's way to the ring: every request fails while `cut` is set, as behind a broken network. */
class Cable implements RingApi {
  cut = false;
  /** Table writes wait for this, as on a slow API server. */
  tableWritesWait: Promise<void> = Promise.resolve();
  constructor(private readonly ring: FakeRing) {}
  private through<T>(call: () => Promise<T>): Promise<T> {
    return this.cut ? Promise.reject(new Error("connection refused")) : call();
  }
  createMember = (name: string) => this.through(() => this.ring.createMember(name));
  /** Renewals go unanswered while set, as behind a proxy that holds requests; other requests pass. */
  renewalsHang = false;
  private readonly heldRenewals: (() => void)[] = [];
  /** Answers the held renewals with a connection error. */
  failHeldRenewals(): void {
    for (const fail of this.heldRenewals.splice(0)) fail();
  }
  renewMember = (name: string, version: string) =>
    this.through(() =>
      this.renewalsHang ? new Promise<string>((_, reject) => this.heldRenewals.push(() => reject(new Error("connection reset")))) : this.ring.renewMember(name, version),
    );
  deleteMember = (name: string, version: string | undefined) => this.through(() => this.ring.deleteMember(name, version));
  memberExists = (name: string) => this.through(() => this.ring.memberExists(name));
  readTable = () => this.through(() => this.ring.readTable());
  writeTable = (table: SlotTable, version: string) => this.through(async () => (await this.tableWritesWait, this.ring.writeTable(table, version)));
}

/** One namespace in each root slot: with few namespaces per slot, no slot is split. */
const namespacesBySlot = new Map<number, string>();
for (let i = 0; namespacesBySlot.size < rootSlotCount; i++) {
  const slot = Number(namespaceHash(`ns-${i}`) >> 56n);
  if (!namespacesBySlot.has(slot)) namespacesBySlot.set(slot, `ns-${i}`);
}
function namespaceOfSlot(slot: number): string {
  return namespacesBySlot.get(slot)!;
}
const spreadNamespaces = [...namespacesBySlot.values()];
/** The root slots' numbers, 0 … 255. */
const allSlots = [...Array(rootSlotCount).keys()];

/** A root slot `member` acts on now. */
function slotHeldBy(member: RingMember): number {
  return allSlots.find((slot) => member.holds(namespaceOfSlot(slot)))!;
}

function startMember(
  ring: FakeRing,
  clock: FakeClock,
  name: string,
  cached: (ranges: readonly HashRange[]) => boolean = () => true,
  namespaces: () => readonly string[] = () => spreadNamespaces,
  timings: typeof lease = lease,
) {
  let n = 0;
  const cable = new Cable(ring);
  const member = new RingMember({
    api: cable,
    ring: "loom",
    identity: name,
    ...timings,
    drainTimeoutMs: 10_000,
    cached,
    namespaces,
    logger: silentLogger,
    clock,
    suffix: () => `${name}-${n++}`,
  });
  ring.watchers.push(member);
  const stop = new AbortController();
  const running = member.run(stop.signal);
  return { member, cable, stop: async () => (stop.abort(), await running) };
}

/** A member's informers: a range added to the share is cached `listMs` later (its list), one removed leaves at once. */
class ListingCaches {
  private share: HashRange[] = [];
  private listed: { ranges: HashRange[]; since: number }[] = [];
  constructor(
    private readonly clock: FakeClock,
    private readonly listMs: number,
  ) {}

  follow(member: RingMember): void {
    member.cacheShare.onChange(() => {
      const wanted = normalizeRanges(member.cacheShare.ranges());
      const added = subtractRanges(wanted, this.share);
      this.listed = this.listed.map(({ ranges, since }) => ({ ranges: intersectRanges(ranges, wanted), since })).filter(({ ranges }) => ranges.length > 0);
      if (added.length > 0) this.listed.push({ ranges: added, since: this.clock.monotonic() });
      this.share = wanted;
    });
  }

  readonly cached = (ranges: readonly HashRange[]): boolean => {
    const done = this.listed.filter(({ since }) => this.clock.monotonic() - since >= this.listMs).flatMap(({ ranges }) => ranges);
    return subtractRanges(normalizeRanges(ranges), normalizeRanges(done)).length === 0;
  };
}

/** Namespaces that two members claim to act on at once, and slots of the table that two claim: must stay empty. */
function doubleHolders(members: RingMember[], namespaces: readonly string[] = spreadNamespaces): string[] {
  const doubled = namespaces.filter((namespace) => members.filter((m) => m.holds(namespace)).length > 1);
  for (const slot of rootSlots()) if (members.filter((m) => m.holds(probe(slot.start))).length > 1) doubled.push(`slot ${slot.start}`);
  return doubled;
}

/** A namespace in the slot starting at `start`; cached per start. */
const probes = new Map<bigint, string>();
function probe(start: bigint): string {
  let name = probes.get(start);
  for (let i = 0; name === undefined; i++) if (namespaceHash(`${i}-probe`) >> 56n === start >> 56n) probes.set(start, (name = `${i}-probe`));
  return name;
}

async function advance(clock: FakeClock, ms: number, members: RingMember[], namespaces?: readonly string[]): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await clock.advance(100);
    expect(doubleHolders(members, namespaces)).toEqual([]);
  }
}

/** Members a and b of a new ring, each holding its share. */
async function twoSettledMembers() {
  const ring = new FakeRing();
  const clock = new FakeClock();
  const a = startMember(ring, clock, "a");
  const b = startMember(ring, clock, "b");
  const both = [a.member, b.member];
  await advance(clock, 4000, both);
  return { ring, clock, a, b, both };
}

describe("shard ring member", () => {
  test("alone, it takes every slot once its caches hold them, and acts everywhere", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    let cached = false;
    const a = startMember(ring, clock, "a", () => cached);
    await advance(clock, afterJoinGrace, [a.member]);
    expect(a.member.verdict("team-a")).toBe("wait");
    cached = true;
    await advance(clock, 2000, [a.member]);
    expect(a.member.status().held).toBe(rootSlotCount);
    expect(a.member.verdict("team-a")).toBe("act");
    expect(a.member.holds("")).toBe(true);
    await a.stop();
  });

  test("a join moves slots only after their holder let them go, and work in flight holds the handover back", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const a = startMember(ring, clock, "a");
    await advance(clock, afterJoinGrace, [a.member]);
    // Work in flight in every slot: none can be handed over until it ends.
    const ends = Array.from({ length: rootSlotCount }, (_, slot) => a.member.begin(namespaceOfSlot(slot))!);
    const b = startMember(ring, clock, "b");
    const both = [a.member, b.member];
    await advance(clock, 3000, both);
    expect(b.member.status().held).toBe(0);
    expect(a.member.status().draining).toBeGreaterThan(rootSlotCount / 4);
    for (const end of ends) end();
    await advance(clock, 3000, both);
    expect(a.member.status().held + b.member.status().held).toBe(rootSlotCount);
    expect(b.member.status().held).toBeGreaterThan(rootSlotCount / 4);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a member that cannot renew stops acting at its renew deadline, before the others take its slots at the lease's end", async () => {
    const { ring, clock, a, b, both } = await twoSettledMembers();
    const aSlot = slotHeldBy(a.member);
    a.cable.cut = true;
    await advance(clock, lease.renewDeadlineMs + 1000, both);
    expect(a.member.holds(namespaceOfSlot(aSlot))).toBe(false);
    await advance(clock, lease.leaseDurationMs, both);
    expect(b.member.status().held).toBe(rootSlotCount);
    // Back on the network: its old Lease is gone, so it joins again under a new one and gets a share back.
    a.cable.cut = false;
    await advance(clock, 8000, both);
    expect(a.member.status().member).not.toBe("loom-a-0");
    expect(ring.leases.has("loom-a-0")).toBe(false);
    expect(a.member.status().held).toBeGreaterThan(rootSlotCount / 4);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a member that lost its membership leaves its Lease to expire: a write it sent may still be on its way", async () => {
    const { ring, clock, a, b, both } = await twoSettledMembers();
    const aSlot = slotHeldBy(a.member);
    const aName = a.member.status().member;
    a.cable.renewalsHang = true;
    await advance(clock, lease.renewDeadlineMs + 500, both);
    expect(a.member.holds(namespaceOfSlot(aSlot))).toBe(false);
    // The others take its slots only once its Lease expires, not the moment it gave up.
    expect(ring.leases.has(aName)).toBe(true);
    expect(b.member.holds(namespaceOfSlot(aSlot))).toBe(false);
    a.cable.renewalsHang = false;
    a.cable.failHeldRenewals();
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a member whose renewals stop lets its namespaces go at the renew deadline itself, not at its next step: writes on their way are abandoned in time", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const timings = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 3000 };
    const a = startMember(ring, clock, "a", undefined, undefined, timings);
    let lastRenewal = 0;
    const renew = a.cable.renewMember;
    a.cable.renewMember = async (name, version) => {
      const renewed = await renew(name, version);
      lastRenewal = clock.monotonic();
      return renewed;
    };
    const lettingGo: { at: number; everything: boolean }[] = [];
    a.member.onLettingGo((lost) => void lettingGo.push({ at: clock.monotonic(), everything: spreadNamespaces.every(lost) }));
    await advance(clock, 8000, [a.member]);
    expect(a.member.status().held).toBe(rootSlotCount);
    a.cable.renewalsHang = true;
    await advance(clock, 2 * timings.renewDeadlineMs, [a.member]);
    const [first] = lettingGo;
    expect(first?.everything).toBe(true);
    expect((first?.at ?? Infinity) - lastRenewal).toBeLessThanOrEqual(timings.renewDeadlineMs + 100);
    a.cable.renewalsHang = false;
    a.cable.failHeldRenewals();
    await a.stop();
  });

  test("a slot handed over after the drain timeout, its work still in flight, is let go before the table frees it", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const a = startMember(ring, clock, "a");
    await advance(clock, afterJoinGrace, [a.member]);
    // Work that never ends, in every slot.
    for (let slot = 0; slot < rootSlotCount; slot++) a.member.begin(namespaceOfSlot(slot));
    const aName = a.member.status().member;
    const lettingGo: { lostSlots: number; stillInTable: number; stillWritable: number }[] = [];
    a.member.onLettingGo((lost) => {
      const lostSlots = allSlots.filter((slot) => lost(namespaceOfSlot(slot)));
      const stillInTable = lostSlots.filter((slot) => holderOfNamespace(ring.table.table, namespaceOfSlot(slot)) === aName).length;
      // A write started after its slot's writes were abandoned would land after the table frees it.
      const stillWritable = lostSlots.filter((slot) => a.member.holds(namespaceOfSlot(slot))).length;
      lettingGo.push({ lostSlots: lostSlots.length, stillInTable, stillWritable });
    });
    const b = startMember(ring, clock, "b");
    await advance(clock, 14_000, [a.member, b.member]);
    expect(b.member.status().held).toBeGreaterThan(rootSlotCount / 4);
    expect(lettingGo.length).toBeGreaterThan(0);
    for (const call of lettingGo) expect(call).toEqual({ lostSlots: call.lostSlots, stillInTable: call.lostSlots, stillWritable: 0 });
    expect(lettingGo.reduce((sum, call) => sum + call.lostSlots, 0)).toBe(b.member.status().held);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a step waiting on a slow table write does not hold the Lease's renewal back", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const a = startMember(ring, clock, "a");
    await advance(clock, afterJoinGrace, [a.member]);
    let release!: () => void;
    a.cable.tableWritesWait = new Promise((resolve) => (release = resolve));
    const b = startMember(ring, clock, "b");
    // a's step hands slots over and waits on the write far past the renew deadline; its renewals go on.
    await advance(clock, 3 * lease.renewDeadlineMs, [a.member, b.member]);
    expect(a.member.status().member).toBe("loom-a-0");
    // Still renewed, so still acting on the slots it keeps.
    expect(allSlots.some((slot) => a.member.holds(namespaceOfSlot(slot)))).toBe(true);
    release();
    await advance(clock, 3000, [a.member, b.member]);
    expect(a.member.status().held + b.member.status().held).toBe(rootSlotCount);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("members started together never cache the whole hash space: a new member watches the ring for two retry periods first", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const a = startMember(ring, clock, "a");
    await clock.advance(500);
    const b = startMember(ring, clock, "b");
    let widest = 0;
    for (let t = 0; t < 6000; t += 100) {
      await clock.advance(100);
      for (const member of [a.member, b.member]) widest = Math.max(widest, member.cacheShare.ranges().reduce((sum, r) => sum + Number((r.end - r.start) >> 56n), 0));
    }
    expect(widest).toBeLessThan(rootSlotCount);
    expect(a.member.status().held + b.member.status().held).toBe(rootSlotCount);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("an idle member looks at the ring once per retry period, not at every renewal of every member", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const looks = new Map<string, number>();
    const counted = (name: string) => () => (looks.set(name, (looks.get(name) ?? 0) + 1), spreadNamespaces);
    const running = ["a", "b", "c"].map((name) => startMember(ring, clock, name, () => true, counted(name)));
    const members = running.map(({ member }) => member);
    await advance(clock, 6000, members);
    expect(members.reduce((sum, member) => sum + member.status().held, 0)).toBe(rootSlotCount);
    looks.clear();
    const periods = 20;
    await advance(clock, periods * lease.retryPeriodMs, members);
    // Three members renew every period; each of them stepping at each renewal would look 3-4 times a period.
    for (const name of ["a", "b", "c"]) expect(looks.get(name)).toBeLessThanOrEqual(periods + 2);
    await Promise.all(running.map((r) => r.stop()));
  });

  test("leaving hands every slot over at once", async () => {
    const { ring, clock, a, b } = await twoSettledMembers();
    const bSlot = slotHeldBy(b.member);
    // Once its writes in flight are abandoned, no new one may start before the table frees the slots.
    let writableWhenLettingGo: boolean | undefined;
    b.member.onLettingGo(() => (writableWhenLettingGo = b.member.holds(namespaceOfSlot(bSlot))));
    await b.stop();
    expect(writableWhenLettingGo).toBe(false);
    expect(ring.leases.has(b.member.status().member)).toBe(false);
    await advance(clock, 2000, [a.member]);
    expect(a.member.status().held).toBe(rootSlotCount);
    await a.stop();
  });

  for (const [scheme, names] of [
    ["scale-0 … scale-99", Array.from({ length: 100 }, (_, i) => `scale-${i}`)],
    ["tenant-0 … tenant-999", Array.from({ length: 1000 }, (_, i) => `tenant-${i}`)],
  ] as const) {
    test(`${scheme}: 3 members act on a third each, a 4th takes only its part, and every namespace has one actor the others agree on`, async () => {
      const ring = new FakeRing();
      const clock = new FakeClock();
      const namespaces = ["default", "kube-system", "kube-public", "kube-node-lease", ...names];
      const running = ["a", "b", "c"].map((name) => startMember(ring, clock, name, () => true, () => namespaces));
      const actors = () => running.map(({ member }) => member);
      await advance(clock, 6000, actors(), namespaces);
      const actingOn = (member: RingMember) => names.filter((namespace) => member.verdict(namespace) === "act").length;
      const agreed = () => {
        for (const namespace of namespaces) {
          const verdicts = actors().map((member) => member.verdict(namespace));
          expect(verdicts.filter((v) => v === "act")).toHaveLength(1);
          expect(verdicts.filter((v) => v === "wait")).toHaveLength(0);
        }
      };
      agreed();
      for (const member of actors()) expect(Math.abs(actingOn(member) / names.length - 1 / 3)).toBeLessThanOrEqual(0.2 / 3);
      const before = ring.table.table;

      running.push(startMember(ring, clock, "d", () => true, () => namespaces));
      await advance(clock, 8000, actors(), namespaces);
      agreed();
      const after = ring.table.table;
      const newcomer = running[3]!.member.status().member;
      const moved = names.filter((namespace) => holderOfNamespace(before, namespace) !== holderOfNamespace(after, namespace));
      expect(moved.length).toBeLessThanOrEqual((1.2 * names.length) / 4);
      for (const namespace of moved) expect(holderOfNamespace(after, namespace)).toBe(newcomer);
      for (const member of actors()) expect(Math.abs(actingOn(member) / names.length - 1 / 4)).toBeLessThanOrEqual(0.2 / 4);
      await Promise.all(running.map((r) => r.stop()));
    });
  }

  test("a namespace created in a crowded slot has the slot split by its holder, which keeps both halves until the plan moves one", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    const namespaces = ["default", "kube-system", ...Array.from({ length: 10 }, (_, i) => `team-${i}`)];
    const a = startMember(ring, clock, "a", () => true, () => namespaces);
    const b = startMember(ring, clock, "b", () => true, () => namespaces);
    await advance(clock, 5000, [a.member, b.member], namespaces);
    const slots = ring.table.table.slots.length;
    for (let i = 10; i < 40; i++) namespaces.push(`team-${i}`);
    a.member.namespacesChanged();
    b.member.namespacesChanged();
    await advance(clock, 5000, [a.member, b.member], namespaces);
    expect(ring.table.table.slots.length).toBeGreaterThan(slots);
    for (const namespace of namespaces) expect([a.member, b.member].filter((m) => m.verdict(namespace) === "act")).toHaveLength(1);
    expect(Math.abs(namespaces.filter((ns) => a.member.holds(ns)).length - namespaces.length / 2)).toBeLessThanOrEqual(namespaces.length * 0.1);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a silent member's would-be namespaces are cached by the others before its Lease expires, so they act there once it is declared dead, without a list to wait for", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    // Listing a share's new ranges takes twice a retry period: without caching ahead, a takeover would wait that long after the lease.
    const running = ["a", "b", "c"].map((name) => {
      const caches = new ListingCaches(clock, 2 * lease.retryPeriodMs);
      const started = startMember(ring, clock, name, caches.cached);
      caches.follow(started.member);
      return started;
    });
    const [a, b, c] = running.map(({ member }) => member) as [RingMember, RingMember, RingMember];
    await advance(clock, 10_000, [a, b, c]);
    expect(a.status().held + b.status().held + c.status().held).toBe(rootSlotCount);
    const victim = a.status().member;
    const orphaned = spreadNamespaces.filter((namespace) => a.holds(namespace));
    expect(orphaned.length).toBeGreaterThan(rootSlotCount / 4);
    const cachedBySurvivors = (namespace: string) => [b, c].some((m) => rangesHoldNamespace(m.cacheShare.ranges(), namespace));
    expect(orphaned.filter(cachedBySurvivors)).toEqual([]);

    running[0]!.cable.cut = true;
    let cachedAheadSeen = false;
    // Until its Lease is deleted, the survivors may cache its namespaces but never act there.
    while (ring.leases.has(victim)) {
      await advance(clock, 100, [a, b, c]);
      if (!ring.leases.has(victim)) break;
      expect(orphaned.filter((namespace) => b.holds(namespace) || c.holds(namespace))).toEqual([]);
      if (orphaned.every(cachedBySurvivors)) {
        cachedAheadSeen = true;
        // Waiting aside (as for a slot about to be held), never acting, at whichever survivor would get it.
        for (const namespace of orphaned) expect([b, c].map((m) => m.verdict(namespace)).sort()).toEqual(["elsewhere", "wait"]);
        expect(b.status().cachedAhead + c.status().cachedAhead).toBeGreaterThan(0);
        expect(b.status().members.find((m) => m.name === victim)).toMatchObject({ alive: true, silent: true });
      }
    }
    expect(cachedAheadSeen).toBe(true);
    // Declared dead: its namespaces are acted on in the same step, their objects being cached already.
    expect(orphaned.filter((namespace) => !b.holds(namespace) && !c.holds(namespace))).toEqual([]);
    expect(b.status().cachedAhead + c.status().cachedAhead).toBe(0);
    await Promise.all(running.map((r) => r.stop()));
  });

  test("a silent member that renews again keeps its slots, and the others drop what they cached ahead of its end", async () => {
    const ring = new FakeRing();
    const clock = new FakeClock();
    // A renew deadline far enough past the 2.5 retry periods that make it silent for the member to come back in between.
    const timings = { leaseDurationMs: 10_000, renewDeadlineMs: 8000, retryPeriodMs: 1000 };
    const running = ["a", "b", "c"].map((name) => startMember(ring, clock, name, () => true, () => spreadNamespaces, timings));
    const [a, b, c] = running.map(({ member }) => member) as [RingMember, RingMember, RingMember];
    await advance(clock, 6000, [a, b, c]);
    const victim = a.status().member;
    const own = spreadNamespaces.filter((namespace) => a.holds(namespace));
    const survivorsShare = () => normalizeRanges([...b.cacheShare.ranges(), ...c.cacheShare.ranges()]);
    const shareBefore = survivorsShare();

    running[0]!.cable.cut = true;
    await advance(clock, 4500, [a, b, c]);
    expect(own.every((namespace) => rangesHoldNamespace(survivorsShare(), namespace))).toBe(true);
    expect(own.every((namespace) => a.holds(namespace))).toBe(true);
    expect(b.status().members.find((m) => m.name === victim)?.silent).toBe(true);

    // Work parked as about to be held is let go only when the verdicts' listeners hear of the change.
    const heard: string[][] = [];
    for (const member of [b, c]) member.onChange(() => heard.push(own.map((namespace) => member.verdict(namespace))));
    running[0]!.cable.cut = false;
    await advance(clock, 2000, [a, b, c]);
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.at(-1)!.every((verdict) => verdict === "elsewhere")).toBe(true);
    expect(a.status().member).toBe(victim);
    expect(own.every((namespace) => a.holds(namespace))).toBe(true);
    expect(survivorsShare()).toEqual(shareBefore);
    for (const namespace of own) expect([b, c].map((m) => m.verdict(namespace))).toEqual(["elsewhere", "elsewhere"]);
    expect(b.status().cachedAhead + c.status().cachedAhead).toBe(0);
    expect(b.status().members.find((m) => m.name === victim)?.silent).toBe(false);
    await Promise.all(running.map((r) => r.stop()));
  });
});
