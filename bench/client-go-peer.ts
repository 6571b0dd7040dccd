// Builds bench/client-go-peer (client-go v0.37.2, the version kube-controller-manager v1.37.2
// is built from) into .cache/bin/ once per source version, and runs it. Its modes are described
// in bench/client-go-peer/main.go; each prints one JSON line.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { binaryCacheDir } from "../test/controlplane/binaries.ts";
import { withBuildLock } from "../pkg/testing/build-lock.ts";
import { dyingWithThisProcess } from "../test/controlplane/daemon-process.ts";

const sourceDir = resolve(import.meta.dir, "client-go-peer");
const sources = ["go.mod", "go.sum", "main.go"];

let built: Promise<string> | undefined;

/** The peer's executable, built on first use (about 3 minutes on 2 cores the first time, then cached). */
export function clientGoPeer(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  const hash = createHash("sha256");
  for (const file of sources) hash.update(readFileSync(join(sourceDir, file)));
  const target = join(binaryCacheDir, `client-go-peer-${hash.digest("hex").slice(0, 12)}`);
  if (existsSync(target)) return target;
  mkdirSync(binaryCacheDir, { recursive: true });
  const log = (message: string) => process.stderr.write(`[client-go-peer] ${message}\n`);
  return withBuildLock(`${target}.lock`, log, async () => {
    if (existsSync(target)) return target;
    log(`building into ${target} (first time about 3 minutes on 2 cores)`);
    const partial = `${target}.partial-${process.pid}`;
    try {
      const go = Bun.spawn(dyingWithThisProcess(["go", "build", "-trimpath", "-ldflags=-s -w", "-o", partial, "."]), {
        cwd: sourceDir,
        env: { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0" },
        stdout: "inherit",
        stderr: "pipe",
      });
      const [code, stderr] = await Promise.all([go.exited, new Response(go.stderr).text()]);
      if (code !== 0) throw new Error(`go build of bench/client-go-peer failed (exit ${code}):\n${stderr.slice(-4000)}`);
      renameSync(partial, target);
      return target;
    } finally {
      rmSync(partial, { force: true });
    }
  });
}

/** Runs one mode of the peer and returns its JSON result; `stdin` feeds the create mode its object. */
export async function runClientGoPeer<T>(args: string[], stdin?: string): Promise<T> {
  const peer = Bun.spawn([await clientGoPeer(), ...args], {
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([peer.exited, new Response(peer.stdout).text(), new Response(peer.stderr).text()]);
  if (code !== 0) throw new Error(`client-go-peer ${args[0]} failed (${code}): ${stderr.trim().split("\n").slice(-5).join("\n")}`);
  return JSON.parse(stdout.trim().split("\n").pop() ?? "") as T;
}
