// Who competes for the Lease, as far as one candidate can know: a Lease names only its holder,
// so the others are this process and every holder seen since it started, each with when it was
// first and last seen holding the Lease.
import type { Clock } from "../clock/clock.ts";
import type { CandidateStatus } from "./status-snapshot.ts";

interface Sighting {
  firstSeenHolding: number;
  lastSeenHolding: number;
}

export class LeaseCandidates {
  private readonly sightings = new Map<string, Sighting>();
  private holder = "";

  constructor(
    private readonly self: string,
    private readonly clock: Clock,
  ) {}

  /** The Lease's holder changed to `identity` ("" once released). */
  holderChanged(identity: string): void {
    const now = this.clock.now();
    this.touch(this.holder, now);
    this.holder = identity;
    this.touch(identity, now);
  }

  /** This process first, then the others, the most recently seen holding first. */
  list(): CandidateStatus[] {
    const now = this.clock.now();
    const status = (identity: string): CandidateStatus => {
      const holding = identity === this.holder;
      const sighting = this.sightings.get(identity);
      return {
        identity,
        self: identity === this.self,
        holding,
        firstSeenHolding: sighting?.firstSeenHolding,
        lastSeenHolding: holding ? now : sighting?.lastSeenHolding,
      };
    };
    const others = [...this.sightings.keys()].filter((identity) => identity !== this.self).map(status);
    others.sort((a, b) => (b.lastSeenHolding ?? 0) - (a.lastSeenHolding ?? 0));
    return [status(this.self), ...others];
  }

  private touch(identity: string, now: number): void {
    if (identity === "") return;
    const sighting = this.sightings.get(identity);
    if (sighting) sighting.lastSeenHolding = now;
    else this.sightings.set(identity, { firstSeenHolding: now, lastSeenHolding: now });
  }
}
