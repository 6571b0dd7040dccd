// Builds a Go program from a pinned Go module (a go.mod and go.sum naming exact versions) into a
// cache folder, once: the binary is named after its version, so a cached one is never rebuilt.
// This is how kube-loom gets etcd and kube-apiserver, for its own tests and for its users'.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { withBuildLock } from "./build-lock.ts";
import { dyingWithThisProcess } from "./daemon-process.ts";

/** A program built with `go build` (or a test binary with `go test -c`) from a folder holding its pinned module. */
export interface GoBinary {
  /** The program's name, e.g. "kube-apiserver". */
  name: string;
  /** Its release, part of the cached file's name. */
  version: string;
  /** The folder with the go.mod that pins it. */
  moduleDir: string;
  /** What `go` compiles, e.g. "k8s.io/kubernetes/cmd/kube-apiserver". */
  goPackage: string;
  /** A program (`go build`, the default) or the tests of `goPackage` (`go test -c`, e.g. Kubernetes' e2e suite). */
  kind?: "program" | "tests";
  ldflags: string;
  /** Said while building: measured on 2 cores, after the builds before it filled Go's cache. */
  firstBuildTime: string;
}

const PROGRESS_INTERVAL_MS = 15_000;

// One build per binary per process, even when several callers ask at once.
const inFlightBuilds = new Map<string, Promise<string>>();

/** The path of `binary` in `binDir` (`<name>-<version>`), built first unless it is there. */
export function ensureGoBinary(binary: GoBinary, binDir: string, log: (message: string) => void): Promise<string> {
  const target = join(binDir, `${binary.name}-${binary.version}`);
  if (existsSync(target)) return Promise.resolve(target);
  let build = inFlightBuilds.get(target);
  if (!build) {
    mkdirSync(binDir, { recursive: true });
    // Under the lock, because another process may have built it while we waited.
    const buildUnlessPresent = async () => (existsSync(target) ? target : await buildBinary(binary, target, log));
    build = withBuildLock(`${target}.lock`, log, buildUnlessPresent).finally(() => inFlightBuilds.delete(target));
    inFlightBuilds.set(target, build);
  }
  return build;
}

async function buildBinary(binary: GoBinary, target: string, log: (message: string) => void): Promise<string> {
  if (!onPath("go")) throw new Error(`cannot build ${binary.name}: no 'go' on PATH (Go >= 1.26 needed, or put a prebuilt binary at ${target})`);
  // go build writes the final name only when we rename, so an interrupted build leaves no half binary.
  const temporary = `${target}.partial-${process.pid}`;
  const label = `${binary.name} ${binary.version}`;
  const startedAt = performance.now();
  log(`building ${label} from ${binary.moduleDir} (once, then cached; first time about ${binary.firstBuildTime} on 2 cores)`);
  const elapsed = () => Math.round((performance.now() - startedAt) / 1000);
  const progress = setInterval(() => log(`still building ${label}: ${elapsed()} s`), PROGRESS_INTERVAL_MS);
  try {
    // Tied to us, so an interrupted run does not leave a go build burning every core.
    const compile = binary.kind === "tests" ? ["test", "-c"] : ["build"];
    const [program = "go", ...args] = dyingWithThisProcess(["go", ...compile, "-trimpath", "-ldflags", binary.ldflags, "-o", temporary, binary.goPackage]);
    const go = spawn(program, args, {
      cwd: binary.moduleDir,
      env: { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    // All go says goes to our stderr as it comes (stdout may be a command's answer), and is kept for the error message.
    const forward = (chunk: Buffer) => {
      process.stderr.write(chunk);
      output += chunk.toString();
    };
    go.stdout.on("data", forward);
    go.stderr.on("data", forward);
    const exitCode = await new Promise<number | null>((resolve, reject) => go.on("error", reject).on("close", resolve));
    if (exitCode !== 0) throw new Error(`go ${compile.join(" ")} of ${label} failed (exit ${exitCode}) in ${binary.moduleDir}:\n${output.slice(-4000)}`);
    renameSync(temporary, target);
    log(`built ${label} in ${elapsed()} s: ${target}`);
    return target;
  } finally {
    clearInterval(progress);
    rmSync(temporary, { force: true });
  }
}

/** The first `program` on PATH, if any. */
export function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, program);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}
