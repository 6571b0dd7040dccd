// Which member should hold each slot: rendezvous (highest-random-weight) hashing. Every member
// scores every slot and the highest score wins, so a member that joins takes ≈ 1/N of the slots,
// from every other member alike, and one that leaves gives only its own away; no member list
// order, token count or ring state is needed, and every replica computes the same answer from
// the same set of members. The slots are what the API server's ranges are made of (slots.ts).
import { fnv1a64 } from "./fnv1a64.ts";
import { slotCount } from "./slots.ts";

const mask = 0xffffffffffffffffn;
const golden = 0x9e3779b97f4a7c15n;

/** splitmix64's finalizer: FNV-1a alone scores neighbouring slots too much alike. */
function mix64(value: bigint): bigint {
  let z = value & mask;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
  return z ^ (z >> 31n);
}

/** The member each slot belongs to (index = slot); empty without members. */
export function assignSlots(members: readonly string[]): string[] {
  if (members.length === 0) return [];
  const seeds = members.map((member) => ({ member, seed: fnv1a64(member) }));
  const owners: string[] = [];
  for (let slot = 0; slot < slotCount; slot++) {
    const salt = (BigInt(slot + 1) * golden) & mask;
    let best = seeds[0]!;
    let bestScore = -1n;
    for (const candidate of seeds) {
      const score = mix64(candidate.seed ^ salt);
      // Ties (practically never) go to the smaller name, so that every replica agrees.
      if (score > bestScore || (score === bestScore && candidate.member < best.member)) {
        best = candidate;
        bestScore = score;
      }
    }
    owners.push(best.member);
  }
  return owners;
}
