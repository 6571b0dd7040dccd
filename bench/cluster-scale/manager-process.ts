// One controller manager process as the scale benchmark runs it: started with a log file, waited
// on through that log, watched through /proc, and talking to kube-apiserver through a proxy of
// its own that counts the bytes it receives. /proc/<pid>/io cannot: its rchar counts read(2) and
// readv(2) but not recv(2), which Bun's sockets use (a Bun process that fetched 50 MiB over
// loopback showed 391 bytes more rchar), and it would count file reads besides.
import { existsSync, readFileSync, statSync } from "node:fs";
import { type DaemonProcess, logTail, spawnDaemon, stopDaemon } from "../../test/controlplane/daemon-process.ts";
import type { TcpProxy } from "../../test/support/tcp-proxy.ts";
import { waitUntil } from "../../test/support/eventually.ts";
import type { PeerProcess, System } from "../peer-processes.ts";
import { residentMiB, waitForQuiet } from "../process-usage.ts";

/** kube-controller-manager v1.37's line when its collector stops waiting for the monitors after 30 s. */
const monitorsGaveUp = /not all resource monitors could be synced/;

export class ManagerProcess {
  private constructor(
    readonly system: System,
    readonly daemon: DaemonProcess,
    readonly logPath: string,
    private readonly monitorsSynced: RegExp,
    /** Where this process's lines begin in a log file that may already hold others'. */
    private readonly logOffset: number,
    /** performance.now() right before exec. */
    readonly execAt: number,
    /** Between this process and kube-apiserver, its only connection to it. */
    private readonly proxy: TcpProxy,
  ) {}

  /** Starts the process against `kubeconfig`, whose server must be `proxy`. */
  static start(peer: PeerProcess, kubeconfig: string, proxy: TcpProxy, logPath: string, extraFlags: readonly string[]): ManagerProcess {
    const logOffset = existsSync(logPath) ? statSync(logPath).size : 0;
    const execAt = performance.now();
    const daemon = spawnDaemon(peer.command(kubeconfig, extraFlags), logPath);
    return new ManagerProcess(peer.system, daemon, logPath, new RegExp(`${peer.monitorsSynced.source}|${monitorsGaveUp.source}`), logOffset, execAt, proxy);
  }

  /** Bytes kube-apiserver has sent this process since exec: TLS records, as they crossed the loopback. */
  get bytesReceived(): number {
    return this.proxy.bytesToClients;
  }

  /** Connections this process has opened to kube-apiserver since exec. */
  get connectionsOpened(): number {
    return this.proxy.acceptedConnections;
  }

  /** What this process has logged so far. */
  logs(): string {
    return readFileSync(this.logPath).subarray(this.logOffset).toString("utf8");
  }

  /** Resolves with `event`; rejects if the process exits first. */
  async unlessExited<T>(event: Promise<T>): Promise<T> {
    const exited = this.daemon.exited.then(() => {
      throw new Error(`${this.system} exited with ${this.daemon.exitCode ?? this.daemon.signalCode}:\n${logTail(this.logPath)}`);
    });
    exited.catch(() => undefined); // once `event` has won, a later exit is nobody's error
    return Promise.race([event, exited]);
  }

  get pid(): number {
    return this.daemon.pid;
  }

  /** Waits for the garbage collector's "monitors synced" line; returns seconds from exec (polled every 100 ms). */
  async monitorsSyncedAfter(timeoutMs: number): Promise<number> {
    await waitUntil(
      () => {
        if (this.daemon.exitCode !== null || this.daemon.signalCode !== null) throw new Error(`${this.system} exited:\n${logTail(this.logPath)}`);
        return this.monitorsSynced.test(this.logs());
      },
      `${this.system} to sync its caches (log ${this.logPath})`,
      timeoutMs,
      100,
    );
    return (performance.now() - this.execAt) / 1000;
  }

  /** Lets start-up work (the collector's first pass over its graph, the JIT) finish: at least `minMs`, then until quiet. */
  async settle(minMs: number, maxMs: number): Promise<void> {
    await Bun.sleep(minMs);
    await waitForQuiet([this.pid], maxMs);
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    await stopDaemon(this.daemon, signal, 30_000);
    await this.proxy.stop();
  }
}

/** The most RSS (MiB) of `pid` sampled every `intervalMs` while `work` runs, and what `work` returned. */
export async function peakRssWhile<T>(pid: number, intervalMs: number, work: Promise<T>): Promise<{ peakMiB: number; result: T }> {
  let peakMiB = residentMiB(pid);
  let done = false;
  const finished = work.finally(() => (done = true));
  finished.catch(() => undefined);
  while (!done) {
    await Promise.race([Bun.sleep(intervalMs), finished.catch(() => undefined)]);
    peakMiB = Math.max(peakMiB, residentMiB(pid));
  }
  return { peakMiB, result: await finished };
}
