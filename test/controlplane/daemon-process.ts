// Long-running child processes (etcd, kube-apiserver) that must never outlive the test process.
import { appendFileSync, closeSync, existsSync, openSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";

export type DaemonProcess = Subprocess<"ignore", number, number>;

const liveDaemons = new Set<DaemonProcess>();

// A normal exit (including `bun test` finishing or process.exit) runs this synchronously.
process.on("exit", () => {
  for (const daemon of liveDaemons) daemon.kill("SIGKILL");
});

// process.on("exit") does not run when we are killed by a signal, so on Linux the kernel
// also kills the child when we die (PR_SET_PDEATHSIG via util-linux setpriv).
const SETPRIV = "/usr/bin/setpriv";
const dieWithParent = process.platform === "linux" && existsSync(SETPRIV) ? [SETPRIV, "--pdeathsig", "KILL"] : [];

/** `command`, wrapped (where the platform allows) so the kernel kills it when this process dies. */
export function dyingWithThisProcess(command: string[]): string[] {
  return [...dieWithParent, ...command];
}

/** Starts `command` with stdout and stderr appended to `logPath`; `env` adds to our environment. */
export function spawnDaemon(command: string[], logPath: string, env: Record<string, string> = {}): DaemonProcess {
  appendFileSync(logPath, `=== ${new Date().toISOString()} starting: ${command.join(" ")}\n`);
  const logFd = openSync(logPath, "a");
  try {
    // A session of its own, so that Ctrl-C in a terminal reaches only us and we stop things in
    // order (kube-loom before the API server it releases its Lease on). Only where the kernel
    // still kills it with us: nothing else would then stop it if we died by a signal.
    const detached = dieWithParent.length > 0;
    const daemon = Bun.spawn(dyingWithThisProcess(command), { stdin: "ignore", stdout: logFd, stderr: logFd, env: { ...process.env, ...env }, detached });
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
