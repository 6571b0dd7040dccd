// One of the kube-loom replicas, kept running the way a Deployment keeps its Pods: the compiled
// binary with every controller, under leader election or as a member of the soak's shard ring,
// reaching the API server through a TCP proxy (so a fault can cut this replica alone) and behind
// it a fault proxy that ends TLS (so a fault can answer its requests badly), as its own user (so
// the audit log tells the replicas apart). When the process exits, for whatever reason, it is
// started again, until the soak retires the replica or ends. Under leader election each start
// flips --leader-elect-warm-standby, so both ways run in one soak.
import { join } from "node:path";
import { logTail } from "../../test/controlplane/daemon-process.ts";
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { KubeLoomProcess } from "../../test/support/kube-loom-binary.ts";
import { RequestFaultProxy } from "../../test/support/request-fault-proxy.ts";
import { TcpProxy } from "../../test/support/tcp-proxy.ts";
import { leaseTimings, type SoakMode } from "./soak-options.ts";
import type { SoakTally } from "./soak-tally.ts";

/** Why the soak itself ended a process, so its exit is not mistaken for a crash. */
type ExpectedExit = "kill -9" | "SIGTERM" | "soak end";

/** Like a kubelet restarting a container: at once after an exit the soak caused or a lost lease, backing off while it crashes. */
const restartDelayMs = 1_000;
const maxCrashDelayMs = 30_000;

/** The shard ring the replicas join in sharded mode; its Leases live in kube-system. */
export const soakRing = "soak";

const modeArgs: Record<SoakMode, readonly string[]> = {
  "leader-election": ["--leader-elect=true"],
  sharded: [`--shard-ring=${soakRing}`],
};

export class SoakReplica {
  readonly exits = new Map<string, number>();
  /** Processes started with --leader-elect-warm-standby on and off (leader election only). */
  readonly warmStandbyStarts = { on: 0, off: 0 };
  /** The log file of every process started so far. */
  readonly logPaths: string[] = [];
  #process: KubeLoomProcess | undefined;
  #expectedExit: ExpectedExit | undefined;
  #frozen = false;
  #crashesInARow = 0;
  #stopping = false;
  #supervision: Promise<void> = Promise.resolve();

  private constructor(
    /** Also its audit user name. */
    readonly user: string,
    readonly proxy: TcpProxy,
    readonly faultProxy: RequestFaultProxy,
    private readonly mode: SoakMode,
    private readonly kubeconfig: string,
    private readonly binary: string,
    private readonly logDir: string,
    private readonly tally: SoakTally,
    /** --leader-elect-warm-standby of the next process started. */
    private warmStandbyNext: boolean,
  ) {}

  static async create(
    controlPlane: ControlPlane,
    mode: SoakMode,
    user: string,
    binary: string,
    logDir: string,
    tally: SoakTally,
    firstWarmStandby: boolean,
  ): Promise<SoakReplica> {
    const client = await controlPlane.issueClientCertificate({ user, groups: ["system:masters"] });
    // The fault proxy talks to the API server as this replica's user, so the audit log still tells them apart.
    const faultProxy = await RequestFaultProxy.inFrontOf(controlPlane, client);
    const proxy = await TcpProxy.start("127.0.0.1", faultProxy.port);
    const kubeconfig = controlPlane.writeKubeconfig({ client, server: `https://127.0.0.1:${proxy.port}`, path: join(logDir, `${user}.kubeconfig`) });
    return new SoakReplica(user, proxy, faultProxy, mode, kubeconfig, binary, logDir, tally, firstWarmStandby);
  }

  /** Starts the process and keeps restarting it until shutdown(). */
  start(): void {
    this.#supervision = this.#supervise();
  }

  get pid(): number | undefined {
    return this.#process?.running ? this.#process.pid : undefined;
  }

  /** True when this replica's /metrics says it acts: it leads, or it holds slots of the ring; false when it does not answer in time. */
  async isActing(): Promise<boolean> {
    if (this.mode === "sharded") return (await this.slotsHeld()) > 0;
    return /^leader_election_master_status\{[^}]*\} 1$/m.test(await this.#metrics());
  }

  /** Slots of the ring this replica holds, by its /metrics (0 when it does not answer in time). */
  async slotsHeld(): Promise<number> {
    return this.#gauge("shard_ring_slots_held");
  }

  /** Slots in the ring's table (256, more once crowded ones are split), by its /metrics (0 when it does not answer in time). */
  async slotsInTable(): Promise<number> {
    return this.#gauge("shard_ring_slots");
  }

  async #gauge(name: string): Promise<number> {
    const match = (await this.#metrics()).match(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, "m"));
    return Number(match?.[1] ?? 0);
  }

  async #metrics(): Promise<string> {
    const process = this.#process;
    if (!process?.running || this.#frozen) return "";
    return fetch(`${process.url}/metrics`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.text(),
      () => "",
    );
  }

  /** kill -9 or SIGTERM; resolves once the process has exited (the supervisor then restarts it). */
  async terminate(signal: "SIGKILL" | "SIGTERM"): Promise<void> {
    const process = this.#process;
    if (!process?.running) return;
    this.#expectedExit = signal === "SIGKILL" ? "kill -9" : "SIGTERM";
    await process.stop(signal);
  }

  /** SIGSTOP for `ms`, then SIGCONT: a leader that stalls past its lease and then goes on. */
  async freeze(ms: number): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    this.#frozen = true;
    try {
      process.kill(pid, "SIGSTOP");
      await Bun.sleep(ms);
    } finally {
      if (this.#process?.running) process.kill(pid, "SIGCONT");
      this.#frozen = false;
    }
  }

  /** Stops the replica for good at the soak's end. */
  shutdown(): Promise<void> {
    return this.#end("SIGTERM", "soak end");
  }

  /** Takes the replica away mid-soak, like a scale-down (SIGTERM) or a lost node (kill -9): it is not started again. */
  retire(signal: "SIGKILL" | "SIGTERM"): Promise<void> {
    return this.#end(signal, signal === "SIGKILL" ? "kill -9" : "SIGTERM");
  }

  async #end(signal: "SIGKILL" | "SIGTERM", why: ExpectedExit): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#expectedExit = why;
    if (this.#frozen && this.pid !== undefined) process.kill(this.pid, "SIGCONT");
    await this.#process?.stop(signal);
    await this.#supervision;
    await this.proxy.stop();
    await this.faultProxy.stop();
  }

  async #supervise(): Promise<void> {
    while (!this.#stopping) {
      const warmStandby = this.#nextWarmStandbyArgs();
      const started = await KubeLoomProcess.start({
        binary: this.binary,
        kubeconfig: this.kubeconfig,
        logDir: this.logDir,
        name: this.user,
        args: [
          "--controllers=*",
          ...modeArgs[this.mode],
          `--leader-elect-lease-duration=${leaseTimings.leaseDurationMs}ms`,
          `--leader-elect-renew-deadline=${leaseTimings.renewDeadlineMs}ms`,
          `--leader-elect-retry-period=${leaseTimings.retryPeriodMs}ms`,
          "--controller-shutdown-timeout=5s",
          ...warmStandby,
        ],
      });
      this.#process = started;
      this.logPaths.push(started.logPath);
      // shutdown() came while this one was starting: it stopped the previous process, not this one.
      if (this.#stopping) await started.stop("SIGTERM");
      const code = await started.exited;
      const crashed = this.#recordExit(started, code);
      this.#crashesInARow = crashed ? this.#crashesInARow + 1 : 0;
      if (!this.#stopping) await Bun.sleep(Math.min(maxCrashDelayMs, restartDelayMs * 2 ** this.#crashesInARow));
    }
  }

  /** Under leader election, the flag for the process about to start (each start flips it); nothing for a ring member. */
  #nextWarmStandbyArgs(): string[] {
    if (this.mode !== "leader-election") return [];
    const on = this.warmStandbyNext;
    this.warmStandbyNext = !on;
    this.warmStandbyStarts[on ? "on" : "off"]++;
    return [`--leader-elect-warm-standby=${on}`];
  }

  /** Counts the exit by cause; true when it was a crash (reported as a violation). */
  #recordExit(exited: KubeLoomProcess, code: number): boolean {
    const expected = this.#expectedExit;
    this.#expectedExit = undefined;
    const cause = explainedExit(expected, code, () => exited.logs());
    const label = cause ?? `exited ${code}`;
    this.exits.set(label, (this.exits.get(label) ?? 0) + 1);
    if (cause !== undefined) return false;
    this.tally.violation("replica-crash", `${this.user} exited with ${code}${expected ? ` after ${expected}` : ""}; last lines of ${exited.logPath}:\n${logTail(exited.logPath, 15)}`);
    return true;
  }
}

/** Why a process ended, when the soak or a lost lease explains it; undefined for a crash. */
export function explainedExit(expected: ExpectedExit | undefined, code: number, logs: () => string): string | undefined {
  if (expected === "kill -9") return "killed (-9)";
  if (expected === "SIGTERM" && code === 0) return "stopped (SIGTERM)";
  // 143: a process the supervisor had only just restarted died of SIGTERM before it could handle it.
  if (expected === "soak end" && (code === 0 || code === 128 + 15)) return "stopped at soak end";
  if (code === 1 && logs().includes("leaderelection lost")) return "lost its lease (exit 1)";
  return undefined;
}
