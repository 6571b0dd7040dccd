// The kube-loom replicas of one soak, as a Deployment would keep them: under leader election a
// fixed pair; in sharded mode a ring of three that faults scale between two and five, a new
// replica joining under a user of its own and a retired one leaving for good. Every replica ever
// started stays listed, for its logs and its exits.
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";
import type { SoakMode } from "./soak-options.ts";
import { SoakReplica } from "./soak-replica.ts";
import type { SoakTally } from "./soak-tally.ts";

interface FleetShape {
  /** Audit users, one per replica that can run at once; the first `initial` start with the soak. */
  users: readonly string[];
  initial: number;
  /** Fewest replicas a removal leaves. */
  minimum: number;
}

const shapes: Record<SoakMode, FleetShape> = {
  "leader-election": { users: ["kube-loom-a", "kube-loom-b"], initial: 2, minimum: 2 },
  sharded: { users: ["kube-loom-a", "kube-loom-b", "kube-loom-c", "kube-loom-d", "kube-loom-e"], initial: 3, minimum: 2 },
};

/** Every audit user a replica of `mode` may run as. */
export function fleetUsers(mode: SoakMode): readonly string[] {
  return shapes[mode].users;
}

export class SoakFleet {
  /** Every replica started, retired ones included. */
  readonly everyReplica: SoakReplica[] = [];
  readonly #running: SoakReplica[] = [];
  readonly #shape: FleetShape;

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly mode: SoakMode,
    private readonly binary: string,
    private readonly logDir: string,
    private readonly tally: SoakTally,
  ) {
    this.#shape = shapes[mode];
  }

  get running(): readonly SoakReplica[] {
    return this.#running;
  }

  async startInitial(): Promise<void> {
    for (let i = 0; i < this.#shape.initial; i++) await this.add();
  }

  /** Starts a replica under a user no running one has; undefined when all of them run. */
  async add(): Promise<SoakReplica | undefined> {
    const user = this.#shape.users.find((candidate) => !this.#running.some((replica) => replica.user === candidate));
    if (user === undefined) return undefined;
    // Replicas take turns starting with warm standby on or off, so a pair runs one of each to begin with.
    const firstWarmStandby = this.everyReplica.length % 2 === 0;
    const replica = await SoakReplica.create(this.controlPlane, this.mode, user, this.binary, this.logDir, this.tally, firstWarmStandby);
    this.everyReplica.push(replica);
    this.#running.push(replica);
    replica.start();
    return replica;
  }

  /** Whether removing one would still leave the fewest replicas the mode runs with. */
  get canRemove(): boolean {
    return this.#running.length > this.#shape.minimum;
  }

  /** Takes `replica` away for good. */
  async remove(replica: SoakReplica, signal: "SIGKILL" | "SIGTERM"): Promise<void> {
    this.#running.splice(this.#running.indexOf(replica), 1);
    await replica.retire(signal);
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.#running.map((replica) => replica.shutdown()));
  }
}
