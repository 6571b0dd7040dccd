// The soak's faults, one at a time at a seeded random pace and in a seeded random order: kube-apiserver killed or stopped and
// started again, one replica's TCP connections cut, an acting replica (the leader, or a member
// of the ring holding slots) partitioned from the API server past its renew deadline, etcd
// compacted under the informers' feet (410 Gone), an acting replica killed with -9 or stopped
// with SIGTERM (and started again), and (opt-in) frozen past its lease. In sharded mode replicas
// also join the ring and leave it for good (SIGTERM or kill -9), between two and five of them.
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { FaultPacer } from "./fault-pacer.ts";
import { leaseTimings, type SoakMode } from "./soak-options.ts";
import type { SeededRandom } from "./seeded-random.ts";
import type { SoakFleet } from "./soak-fleet.ts";
import type { SoakReplica } from "./soak-replica.ts";
import type { SoakTally } from "./soak-tally.ts";

type Fault = "apiserver-restart" | "tcp-cut" | "partition" | "etcd-compaction" | "actor-kill" | "actor-stop" | "actor-freeze" | "replica-added" | "replica-removed";

/** How long to look for an acting replica before a fault aimed at one is skipped (none may act during a failover). */
const findActorTimeoutMs = 10_000;

/** What the faults aimed at an acting replica are called in each mode's report. */
const actorNoun: Record<SoakMode, string> = { "leader-election": "leader", sharded: "member" };

export class ChaosMonkey {
  readonly #pacer: FaultPacer<Fault>;

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly fleet: SoakFleet,
    private readonly random: SeededRandom,
    private readonly tally: SoakTally,
    private readonly options: { mode: SoakMode; meanFaultIntervalMs: number; freeze: boolean },
  ) {
    this.#pacer = new FaultPacer(random, options.meanFaultIntervalMs, () => {
      const kinds: Fault[] = ["apiserver-restart", "tcp-cut", "partition", "etcd-compaction", "actor-kill", "actor-stop"];
      if (options.freeze) kinds.push("actor-freeze");
      if (options.mode === "sharded") kinds.push("replica-added", "replica-removed");
      return kinds;
    });
  }

  /** Monotonic ms when the last fault ended (the system was whole again). */
  get lastFaultEndedAt(): number {
    return this.#pacer.lastFaultEndedAt;
  }

  /** Injects faults until `signal` aborts; the fault in progress is finished and undone first. */
  run(signal: AbortSignal): Promise<void> {
    return this.#pacer.run(signal, (fault) => this.#inject(fault));
  }

  async #inject(fault: Fault): Promise<void> {
    switch (fault) {
      case "apiserver-restart": {
        const signal = this.random.chance(0.5) ? "SIGKILL" : "SIGTERM";
        this.tally.fault(`apiserver-restart (${signal === "SIGKILL" ? "kill -9" : "SIGTERM"})`);
        await this.controlPlane.stopApiserver({ signal });
        await Bun.sleep(this.random.int(500, 3_000));
        // Throws (ending the soak) if it cannot come back: nothing else could be judged then.
        await this.controlPlane.startApiserver();
        return;
      }
      case "tcp-cut": {
        const replica = this.random.pick(this.fleet.running);
        this.tally.fault("tcp-cut");
        replica?.proxy.cutAll();
        return;
      }
      case "partition": {
        // An acting replica, if one can be found; a standby's partition is a fault too.
        const replica = (await this.#actor()) ?? this.random.pick(this.fleet.running);
        this.tally.fault("partition");
        replica?.proxy.pause("refuse");
        await Bun.sleep(leaseTimings.renewDeadlineMs + this.random.int(1_000, 4_000));
        // Half the time the store moves past what the partitioned replica saw: it must relist.
        if (this.random.chance(0.5)) await this.#compact();
        replica?.proxy.resume();
        return;
      }
      case "etcd-compaction":
        await this.#compact();
        // Cut every watch, so each resumes from a compacted revision and gets 410 Gone.
        for (const replica of this.fleet.running) replica.proxy.cutAll();
        return;
      case "actor-kill":
      case "actor-stop":
      case "actor-freeze": {
        const label = fault.replace("actor", actorNoun[this.options.mode]);
        const actor = await this.#actor();
        if (!actor) return this.tally.faultSkipped(label, `no ${actorNoun[this.options.mode]} acting`);
        this.tally.fault(label);
        if (fault === "actor-freeze") await actor.freeze(leaseTimings.leaseDurationMs + this.random.int(2_000, 5_000));
        else await actor.terminate(fault === "actor-kill" ? "SIGKILL" : "SIGTERM");
        return;
      }
      case "replica-added": {
        const added = await this.fleet.add();
        if (!added) return this.tally.faultSkipped(fault, "every replica runs");
        this.tally.fault(fault);
        return;
      }
      case "replica-removed": {
        const replica = this.random.pick(this.fleet.running);
        if (!replica || !this.fleet.canRemove) return this.tally.faultSkipped(fault, "too few replicas");
        const signal = this.random.chance(0.5) ? "SIGKILL" : "SIGTERM";
        this.tally.fault(`replica-removed (${signal === "SIGKILL" ? "kill -9" : "SIGTERM"})`);
        await this.fleet.remove(replica, signal);
        return;
      }
    }
  }

  async #compact(): Promise<void> {
    this.tally.fault("etcd-compaction");
    await this.controlPlane.compactEtcd();
  }

  /** The leader, or a random one of the ring's members holding slots. */
  async #actor(): Promise<SoakReplica | undefined> {
    const deadline = performance.now() + findActorTimeoutMs;
    while (performance.now() < deadline) {
      const running = [...this.fleet.running];
      const actingNow = await Promise.all(running.map((replica) => replica.isActing()));
      const actors = running.filter((_, i) => actingNow[i]);
      if (actors.length > 0) return this.random.pick(actors);
      await Bun.sleep(250);
    }
    return undefined;
  }
}
