// The soak's faults, one at a time at a seeded random pace and in a seeded random order: kube-apiserver killed or stopped and
// started again, one replica's TCP connections cut, the leader partitioned from the API server
// past its renew deadline, etcd compacted under the informers' feet (410 Gone), the leader
// killed with -9 or stopped with SIGTERM, and (opt-in) the leader frozen past its lease.
import { realClock } from "../../pkg/clock/clock.ts";
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { leaseTimings } from "./soak-options.ts";
import type { SeededRandom } from "./seeded-random.ts";
import type { SoakReplica } from "./soak-replica.ts";
import type { SoakTally } from "./soak-tally.ts";

type Fault = "apiserver-restart" | "tcp-cut" | "partition" | "etcd-compaction" | "leader-kill" | "leader-stop" | "leader-freeze";

/** How long to look for a leader before a leader fault is skipped (none may lead during a failover). */
const findLeaderTimeoutMs = 10_000;

export class ChaosMonkey {
  readonly #deck: Fault[] = [];
  /** Monotonic ms when the last fault ended (the system was whole again). */
  lastFaultEndedAt = performance.now();

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly replicas: readonly SoakReplica[],
    private readonly random: SeededRandom,
    private readonly tally: SoakTally,
    private readonly options: { meanFaultIntervalMs: number; freeze: boolean },
  ) {}

  /** Injects faults until `signal` aborts; the fault in progress is finished and undone first. */
  async run(signal: AbortSignal): Promise<void> {
    for (;;) {
      await realClock.sleep(this.random.jitter(this.options.meanFaultIntervalMs), signal).catch(() => undefined);
      if (signal.aborted) return;
      await this.#inject(this.#nextFault());
      this.lastFaultEndedAt = performance.now();
    }
  }

  /** Faults are dealt from a shuffled deck holding each kind once, so even a short run sees every kind. */
  #nextFault(): Fault {
    if (this.#deck.length === 0) {
      const kinds: Fault[] = ["apiserver-restart", "tcp-cut", "partition", "etcd-compaction", "leader-kill", "leader-stop"];
      if (this.options.freeze) kinds.push("leader-freeze");
      while (kinds.length > 0) this.#deck.push(...kinds.splice(this.random.int(0, kinds.length - 1), 1));
    }
    return this.#deck.pop() ?? "tcp-cut";
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
        const replica = this.random.pick(this.replicas);
        this.tally.fault("tcp-cut");
        replica?.proxy.cutAll();
        return;
      }
      case "partition": {
        // The leader, if one can be found; a standby's partition is a fault too.
        const replica = (await this.#leader()) ?? this.random.pick(this.replicas);
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
        for (const replica of this.replicas) replica.proxy.cutAll();
        return;
      case "leader-kill":
      case "leader-stop": {
        const leader = await this.#leader();
        if (!leader) return this.tally.faultSkipped(fault, "no leader");
        this.tally.fault(fault);
        await leader.terminate(fault === "leader-kill" ? "SIGKILL" : "SIGTERM");
        return;
      }
      case "leader-freeze": {
        const leader = await this.#leader();
        if (!leader) return this.tally.faultSkipped(fault, "no leader");
        this.tally.fault(fault);
        await leader.freeze(leaseTimings.leaseDurationMs + this.random.int(2_000, 5_000));
        return;
      }
    }
  }

  async #compact(): Promise<void> {
    this.tally.fault("etcd-compaction");
    await this.controlPlane.compactEtcd();
  }

  async #leader(): Promise<SoakReplica | undefined> {
    const deadline = performance.now() + findLeaderTimeoutMs;
    while (performance.now() < deadline) {
      for (const replica of this.replicas) if (await replica.isLeading()) return replica;
      await Bun.sleep(250);
    }
    return undefined;
  }
}
