// Long-running child processes (etcd, kube-apiserver) that must never outlive the test process.
// Spawned through node:child_process, so the same code runs under Bun, Node and Deno.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { constants } from "node:os";

export interface DaemonProcess {
  readonly pid: number;
  /** The exit code once it has exited by itself; null while it runs or when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it; null while it runs or when it exited by itself. */
  readonly signalCode: NodeJS.Signals | null;
  /** Resolves once it has exited: its exit code, or 128 + the signal's number, as a shell reports it. */
  readonly exited: Promise<number>;
  kill(signal?: NodeJS.Signals): void;
}

const liveDaemons = new Set<DaemonProcess>();

// A normal exit (including the test runner finishing or process.exit) runs this synchronously.
process.on("exit", () => {
  for (const daemon of liveDaemons) daemon.kill("SIGKILL");
});

// process.on("exit") does not run when we are killed by a signal, so on Linux the kernel
// also kills the child when we die (PR_SET_PDEATHSIG via util-linux setpriv).
const SETPRIV = "/usr/bin/setpriv";
const dieWithParent = process.platform === "linux" && existsSync(SETPRIV) ? [SETPRIV, "--pdeathsig", "KILL"] : [];

/** `command`, wrapped (where the platform allows) so the kernel kills it when this process dies. */
export function dyingWithThisProcess(command: readonly string[]): string[] {
  return [...dieWithParent, ...command];
}

/** Starts `command` with stdout and stderr appended to `logPath`; `env` adds to our environment. */
export function spawnDaemon(command: readonly string[], logPath: string, env: Record<string, string> = {}): DaemonProcess {
  appendFileSync(logPath, `=== ${new Date().toISOString()} starting: ${command.join(" ")}\n`);
  const logFd = openSync(logPath, "a");
  try {
    const [program = "", ...args] = dyingWithThisProcess(command);
    // A session of its own, so that Ctrl-C in a terminal reaches only us and we stop things in
    // order (kube-loom before the API server it releases its Lease on). Only where the kernel
    // still kills it with us: nothing else would then stop it if we died by a signal.
    const detached = dieWithParent.length > 0;
    const child = spawn(program, args, { stdio: ["ignore", logFd, logFd], env: { ...process.env, ...env }, detached });
    const daemon = new ChildDaemon(child, logPath);
    liveDaemons.add(daemon);
    void daemon.exited.then(() => liveDaemons.delete(daemon));
    return daemon;
  } finally {
    closeSync(logFd); // the child has its own copy
  }
}

/** Sends `signal`, and SIGKILL if the process is still there after `graceMs`. */
export async function stopDaemon(daemon: DaemonProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 10_000): Promise<void> {
  if (hasExited(daemon)) return;
  daemon.kill(signal);
  const timer = setTimeout(() => daemon.kill("SIGKILL"), graceMs);
  try {
    await daemon.exited;
  } finally {
    clearTimeout(timer);
  }
}

export function hasExited(daemon: DaemonProcess): boolean {
  return daemon.exitCode !== null || daemon.signalCode !== null;
}

/** The last `lines` lines of a log file, for error messages. */
export function logTail(logPath: string, lines = 40): string {
  if (!existsSync(logPath)) return `(no log at ${logPath})`;
  const text = readFileSync(logPath, "utf8").trimEnd();
  return text.split("\n").slice(-lines).join("\n");
}

/** Exit code a shell reports for a process that could not be started at all. */
const COULD_NOT_START = 127;

class ChildDaemon implements DaemonProcess {
  readonly exited: Promise<number>;
  #failedToStart = false;

  constructor(
    private readonly child: ChildProcess,
    logPath: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
      // Emitted instead of "exit" when the program cannot be run at all (say, it does not exist);
      // the log says why, so an error quoting its tail does too.
      child.once("error", (error) => {
        if (child.pid !== undefined) return;
        this.#failedToStart = true;
        appendFileSync(logPath, `could not start: ${error.message}\n`);
        resolve(COULD_NOT_START);
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get exitCode(): number | null {
    return this.#failedToStart ? COULD_NOT_START : this.child.exitCode;
  }

  get signalCode(): NodeJS.Signals | null {
    return this.child.signalCode;
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): void {
    if (!hasExited(this)) this.child.kill(signal);
  }
}
