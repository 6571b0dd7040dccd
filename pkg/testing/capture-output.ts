// Runs a short command to completion and keeps what it printed (openssl, kubectl), through
// node:child_process so that it works under Bun, Node and Deno alike.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { constants } from "node:os";

export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command`; `stdin` is written to its standard input. Rejects only when it cannot be started. */
export function captureOutput(command: readonly string[], options: { stdin?: string } = {}): Promise<CommandOutput> {
  const [program = "", ...args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", (error) => reject(new Error(`cannot run ${program}: ${error.message}`, { cause: error })));
    // "close" comes after the output streams have ended, so nothing printed is lost.
    child.once("close", (code, signal) => {
      resolve({
        code: code ?? 128 + (signal ? constants.signals[signal] : 0),
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  });
}
