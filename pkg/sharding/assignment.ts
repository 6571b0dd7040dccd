// Which member should hold each slot: balanced by the namespaces the slots hold, and sticky.
// Rendezvous hashing alone (every member scores every slot, the highest score wins) moves only
// what a join or leave must, but balances hash space, not namespaces: with 100 namespaces over 3
// members it gives one member 40 as easily as 33. So the plan starts from who holds each slot now
// (the table): a member clearly over its fair part of the namespaces (their count / members; by
// more than an eighth of it, and at least one namespace, so that a namespace created or deleted
// does not move slots each time) gives away the slots it scores lowest, only while it stays at or
// above that part, and the slots nobody keeps go, in hash order, to the member under its fair part
// that scores them highest. A member
// that joins is then the only one under its part: every slot that moves, moves to it; a member
// that leaves has its slots spread over those under their part. Each member ends within one
// slot's namespaces of its part (slot-splits.ts keeps slots small). Slots without namespaces go
// with the slot before them, so that a share is few ranges. Every replica computes the same plan
// from the same table, members and namespaces.
import { fnv1a64 } from "./fnv1a64.ts";
import type { HashRange } from "./hash-range.ts";

const mask = 0xffffffffffffffffn;
const golden = 0x9e3779b97f4a7c15n;

/** splitmix64's finalizer: FNV-1a alone scores neighbouring slots too much alike. */
function mix64(value: bigint): bigint {
  let z = value & mask;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
  return z ^ (z >> 31n);
}

export interface SlotPlanInput {
  /** The slots, sorted and covering the hash space. */
  slots: readonly HashRange[];
  /** Who holds each slot now; holders that are not among `members` count as nobody. */
  holders: readonly (string | undefined)[];
  /** The members alive. */
  members: readonly string[];
  /** Namespaces in each slot. */
  weights: readonly number[];
}

/** The member each slot belongs to (index = slot); empty without members. */
export function planSlotOwners({ slots, holders, members, weights }: SlotPlanInput): string[] {
  if (members.length === 0) return [];
  const sorted = [...members].sort();
  const seeds = new Map(sorted.map((member) => [member, fnv1a64(member)]));
  const salts = slots.map((slot) => mix64(slot.start ^ golden));
  const score = (member: string, slot: number): bigint => mix64(seeds.get(member)! ^ salts[slot]!);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const count = sorted.length;
  // Compared as load·members against the total, so that a fair part that is no integer is exact.
  const atOrAboveFair = (load: number) => load * count >= total;
  const fair = total / count;
  const clearlyOver = (load: number) => load > fair + Math.max(1, fair / 8);
  const load = new Map(sorted.map((member) => [member, 0]));
  const owners: (string | undefined)[] = slots.map(() => undefined);

  slots.forEach((_, slot) => {
    const holder = holders[slot];
    if (weights[slot]! > 0 && holder !== undefined && load.has(holder)) {
      owners[slot] = holder;
      load.set(holder, load.get(holder)! + weights[slot]!);
    }
  });
  for (const member of sorted) {
    if (!clearlyOver(load.get(member)!)) continue;
    const own = owners.flatMap((owner, slot) => (owner === member ? [slot] : []));
    own.sort((a, b) => {
      const [sa, sb] = [score(member, a), score(member, b)];
      return sa < sb ? -1 : sa > sb ? 1 : a - b;
    });
    for (const slot of own) {
      const after = load.get(member)! - weights[slot]!;
      if (!atOrAboveFair(after)) continue;
      owners[slot] = undefined;
      load.set(member, after);
    }
  }
  slots.forEach((_, slot) => {
    if (weights[slot] === 0 || owners[slot] !== undefined) return;
    const under = sorted.filter((member) => !atOrAboveFair(load.get(member)!));
    const lowest = Math.min(...sorted.map((member) => load.get(member)!));
    const candidates = under.length > 0 ? under : sorted.filter((member) => load.get(member) === lowest);
    let best = candidates[0]!;
    for (const candidate of candidates) if (score(candidate, slot) > score(best, slot)) best = candidate;
    owners[slot] = best;
    load.set(best, load.get(best)! + weights[slot]!);
  });

  const topScorer = (slot: number) => sorted.reduce((best, member) => (score(member, slot) > score(best, slot) ? member : best));
  const lastWeighted = owners.findLastIndex((owner) => owner !== undefined);
  // Without a namespace anywhere (not even ""), plain rendezvous.
  if (lastWeighted < 0) return slots.map((_, slot) => topScorer(slot));
  let previous = owners[lastWeighted]!;
  return owners.map((owner) => (previous = owner ?? previous));
}
