// The compiled kube-loom executable in tests: built with package.json's `build` command (what
// `bun run build` does, with another entry and output), run as separate processes the way an
// operator runs it, with logs in a file and /healthz to wait on. Test files run in parallel
// processes (test/run-test-files.ts), so builds are cached by a hash of the sources and shared
// between processes under a lock.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { protobufMediaType } from "../../pkg/kube/protobuf/media-types.ts";
import { withBuildLock } from "../../pkg/testing/build-lock.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";
import { type DaemonProcess, hasExited, logTail, spawnDaemon, stopDaemon } from "../controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "../controlplane/free-ports.ts";

const repoRoot = resolve(import.meta.dir, "../..");
const builds = new Map<string, Promise<string>>();
// Everything a compiled entry can import, besides node_modules (pinned by the lock file). One
// pattern per folder: Bun.Glob matches nothing for a pattern with two brace groups.
const SOURCE_GLOBS = [
  "mod.ts",
  "package.json",
  "package-lock.json",
  ...["cmd", "pkg", "controllers", "config", "test/fixtures"].map((folder) => `${folder}/**/*.{ts,json,yaml}`),
];

/** Compiles `entry` (default: the real kube-loom) into a single executable; returns its path. */
export function buildKubeLoom(entry = "cmd/kube-loom/main.ts"): Promise<string> {
  let build = builds.get(entry);
  if (!build) {
    build = compileOnce(entry);
    builds.set(entry, build);
  }
  return build;
}

async function compileOnce(entry: string): Promise<string> {
  const outDir = join(repoRoot, ".cache", "test-bin");
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${entry.replaceAll("/", "_").replace(/\.ts$/, "")}-${await sourceHash()}`);
  if (existsSync(outfile)) return outfile;
  const log = (message: string) => process.stderr.write(`[kube-loom-binary] ${message}\n`);
  return withBuildLock(`${outfile}.lock`, log, async () => {
    if (existsSync(outfile)) return outfile;
    await compile(entry, outfile);
    removeOlderBuilds(outfile);
    return outfile;
  });
}

/**
 * Compiles `entry` into `outfile` as the `build` script of `root`'s package.json compiles kube-loom
 * (`root`: this repository, or another kube-loom source tree); returns `outfile`. Not cached.
 */
export async function compile(entry: string, outfile: string, root = repoRoot): Promise<string> {
  // Written in a folder of its own and renamed, so no process ever runs a half-written executable.
  // --sourcemap also writes a map beside the executable for each chunk (--splitting), which the
  // executable carries its own copy of: the folder goes with them.
  const workDir = `${outfile}.partial-${process.pid}`;
  const partial = join(workDir, basename(outfile));
  try {
    const build = Bun.spawn(buildCommand(entry, partial, root), {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
    if (code !== 0) throw new Error(`bun build --compile ${entry} failed (${code}): ${stderr}`);
    renameSync(partial, outfile);
    return outfile;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `root`'s package.json `build` script with `entry` and `outfile` in place of the real ones. */
function buildCommand(entry: string, outfile: string, root: string): string[] {
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
  const words = script.split(/\s+/);
  const output = words.indexOf("--outfile") + 1;
  if (words[0] !== "bun" || output === 0) throw new Error(`package.json's build script is not "bun build … --outfile FILE": ${script}`);
  return words.map((word, i) => (i === 0 ? "./node_modules/.bin/bun" : i === output ? outfile : word.endsWith("main.ts") ? entry : word));
}

/** Builds of the same entry from older sources: about 100 MB each, never used again. */
function removeOlderBuilds(outfile: string): void {
  const dir = dirname(outfile);
  const prefix = basename(outfile).replace(/-[0-9a-f]{16}$/, "-");
  for (const name of readdirSync(dir)) {
    if (name.startsWith(prefix) && /^[0-9a-f]{16}$/.test(name.slice(prefix.length)) && join(dir, name) !== outfile) rmSync(join(dir, name), { force: true });
  }
}

/** Every file the cache key hashes, relative to the repository. */
export async function sourceFiles(): Promise<string[]> {
  const found = await Promise.all(SOURCE_GLOBS.map((pattern) => Array.fromAsync(new Bun.Glob(pattern).scan({ cwd: repoRoot }))));
  return found.flat().sort();
}

async function sourceHash(): Promise<string> {
  const hash = createHash("sha256");
  for (const file of await sourceFiles()) hash.update(file).update("\0").update(readFileSync(join(repoRoot, file))).update("\0");
  return hash.digest("hex").slice(0, 16);
}

export interface KubeLoomProcessOptions {
  binary: string;
  /** Runs the program through another command instead of `binary` alone, e.g. ["deno", "run", "-A", "main.ts"]. */
  launcher?: string[];
  kubeconfig: string;
  /**
   * Extra flags; --kubeconfig, --port (plain HTTP on loopback) and --secure-port are set already,
   * and --kube-api-content-type when the run asks for JSON (KUBE_LOOM_TEST_CONTENT_TYPE); a flag here wins.
   */
  args?: string[];
  /** Serve HTTPS on a free loopback port (see `secureUrl`); otherwise HTTPS is off, so no two processes contend for 10257. */
  https?: boolean;
  /** Folder for the log file. */
  logDir: string;
  name?: string;
}

export class KubeLoomProcess {
  private constructor(
    private readonly daemon: DaemonProcess,
    /** Plain HTTP, no credentials needed. */
    readonly url: string,
    /** HTTPS when started with `https`. */
    readonly secureUrl: string | undefined,
    readonly logPath: string,
  ) {}

  static async start(options: KubeLoomProcessOptions): Promise<KubeLoomProcess> {
    const contentType = testContentType();
    const { port, securePort } = await freeLoopbackPorts(["port", "securePort"] as const);
    mkdirSync(options.logDir, { recursive: true });
    const logPath = join(options.logDir, `${options.name ?? "kube-loom"}-${port}.log`);
    const command = [
      ...(options.launcher ?? [options.binary]),
      `--kubeconfig=${options.kubeconfig}`,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${options.https ? securePort : 0}`,
      ...(contentType === protobufMediaType ? [] : [`--kube-api-content-type=${contentType}`]),
      ...(options.args ?? []),
    ];
    const secureUrl = options.https ? `https://127.0.0.1:${securePort}` : undefined;
    return new KubeLoomProcess(spawnDaemon(command, logPath), `http://127.0.0.1:${port}`, secureUrl, logPath);
  }

  get pid(): number {
    return this.daemon.pid;
  }

  get exited(): Promise<number> {
    return this.daemon.exited;
  }

  get running(): boolean {
    return !hasExited(this.daemon);
  }

  /** Everything the process logged so far. */
  logs(): string {
    return readFileSync(this.logPath, "utf8");
  }

  /** Waits until `path` (e.g. /healthz) answers 200; fails early with the log tail if the process exits. */
  async waitFor(path: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`kube-loom exited with ${this.daemon.exitCode}:\n${logTail(this.logPath)}`);
      const status = await fetch(this.url + path).then((r) => r.status, () => 0);
      if (status === 200) return;
      await Bun.sleep(100);
    }
    throw new Error(`kube-loom ${path} not 200 after ${timeoutMs} ms:\n${logTail(this.logPath)}`);
  }

  /** Sends `signal` and waits for the exit code (SIGKILL after 60 s). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number> {
    await stopDaemon(this.daemon, signal, 60_000);
    return this.daemon.exitCode ?? 128;
  }

  /**
   * Stops it with SIGTERM and fails, with the log's tail, unless it exits 0. In a test's `finally`
   * this failure replaces the test's own, so the tail must say why it exited (e.g. at start-up).
   */
  async stopCleanly(): Promise<void> {
    const code = await this.stop();
    if (code !== 0) throw new Error(`kube-loom exited with ${code}, expected 0:\n${logTail(this.logPath)}`);
  }
}

/** Whether the process says it leads (its leader_election_master_status gauge); false while it does not answer. */
export async function isLeading(instance: KubeLoomProcess): Promise<boolean> {
  const metrics = await fetch(`${instance.url}/metrics`).then((r) => r.text(), () => "");
  return /^leader_election_master_status\{name="[^"]+"\} 1$/m.test(metrics);
}
