// What one process holds before it caches anything: kube-loom with every controller against an
// empty cluster, kube-controller-manager v1.37 with the same built-in ones (replicaset and the
// garbage collector; the network controller is kube-loom's own), and Bun's floor (a compiled
// program that sleeps; and one that first sends one request over TLS). RSS from /proc, and its
// anonymous and file-backed parts, right after the sync and after a time idle. Each starts with its
// executable out of the page cache (fixed-memory/evict-page-cache.ts says why). One process at a
// time, rounds interleaved; medians with the spread (min–max).
//   bun bench/fixed-memory.ts [rounds, default 3] [idle seconds, default 60] [--baseline DIR]
// --baseline DIR: also measure another kube-loom source tree (e.g. `git archive main | tar -x -C DIR`),
// compiled by its own package.json's build, in the same rounds: the same figure before and after a change.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { compile } from "../test/support/kube-loom-binary.ts";
import { evictFromPageCache } from "./fixed-memory/evict-page-cache.ts";
import { describeMachine } from "./machine.ts";
import { buildPeerProcesses } from "./peer-processes.ts";
import { printTable } from "./print-table.ts";
import { residentParts, type ResidentParts } from "./process-usage.ts";
import { median, ratio, Samples } from "./statistics.ts";

const { values, positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { baseline: { type: "string" } } });
const rounds = Number(positionals[0] ?? 3);
const idleSeconds = Number(positionals[1] ?? 60);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(idleSeconds) || idleSeconds < 0) {
  usage(`rounds must be a positive integer and idle seconds a whole number, got ${positionals.join(" ")}`);
}
const baselineRoot = values.baseline === undefined ? undefined : resolve(values.baseline);
if (baselineRoot !== undefined && !existsSync(join(baselineRoot, "cmd/kube-loom/main.ts"))) usage(`--baseline ${values.baseline}: not a kube-loom source tree`);
/** After the sync: the first collections and the JIT's first compilations settle. */
const settleMs = 5_000;

type Program = "kube-controller-manager" | "kube-loom" | "kube-loom, baseline" | "Bun, sleeping" | "Bun, one TLS request";

interface MeasuredProgram {
  name: Program;
  command(controlPlane: ControlPlane): string[];
  /** In its log once it is synced (or, for Bun's floor, idle). */
  ready: RegExp;
}

const repoRoot = resolve(import.meta.dir, "..");
const floorDir = join(repoRoot, ".cache", "bench");
mkdirSync(floorDir, { recursive: true });

const [controlPlane, peers, floor, baseline] = await Promise.all([
  ControlPlane.start(),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller,garbage-collector-controller", "kube-loom": "*" }),
  // On disk beside the others, not in the control plane's folder: a file on tmpfs is counted as shared memory, not as file-backed.
  compile(join(repoRoot, "bench/fixed-memory/bun-floor.ts"), join(floorDir, "bun-floor")),
  baselineRoot === undefined ? undefined : buildBaseline(baselineRoot),
]);
const programs: MeasuredProgram[] = peers.map((peer) => ({ name: peer.system, command: (cp) => peer.command(cp.kubeconfigPath), ready: peer.monitorsSynced }));
const kubeLoom = peers.find((peer) => peer.system === "kube-loom");
if (baseline !== undefined && kubeLoom !== undefined) {
  // The same command line, the baseline's executable.
  const command = (cp: ControlPlane) => [baseline, ...kubeLoom.command(cp.kubeconfigPath).slice(1)];
  programs.push({ name: "kube-loom, baseline", command, ready: kubeLoom.monitorsSynced });
}
programs.push(
  { name: "Bun, sleeping", command: () => [floor], ready: /^ready$/m },
  {
    name: "Bun, one TLS request",
    command: (cp) => [floor, cp.server, cp.caFile, cp.admin.certFile, cp.admin.keyFile],
    ready: /^ready$/m,
  },
);
const samples = new Samples<Program>();

try {
  for (let round = 1; round <= rounds; round++) {
    for (const program of programs) await measure(program, round);
  }
  printResults();
} finally {
  await controlPlane.stop();
}

/** The baseline tree's kube-loom, compiled with its own build script and this tree's packages. */
async function buildBaseline(root: string): Promise<string> {
  if (!existsSync(join(root, "node_modules"))) symlinkSync(join(repoRoot, "node_modules"), join(root, "node_modules"));
  return compile("cmd/kube-loom/main.ts", join(floorDir, "kube-loom-baseline"), root);
}

function usage(message: string): never {
  console.error(`${message}\nusage: bun bench/fixed-memory.ts [rounds] [idle seconds] [--baseline DIR]`);
  process.exit(2);
}

async function measure(program: MeasuredProgram, round: number): Promise<void> {
  const logPath = join(controlPlane.dir, `${program.name.replaceAll(/\W+/g, "-")}-${round}.log`);
  const command = program.command(controlPlane);
  evictFromPageCache(command[0] ?? "");
  const daemon = spawnDaemon(command, logPath);
  try {
    await waitUntil(() => program.ready.test(readFileSync(logPath, "utf8")), `${program.name} to sync (log ${logPath})`, 120_000, 100);
    await Bun.sleep(settleMs);
    const synced = residentParts(daemon.pid);
    await Bun.sleep(idleSeconds * 1000);
    const idle = residentParts(daemon.pid);
    record("synced", program.name, synced);
    record("idle", program.name, idle);
    console.error(`${program.name} round ${round}: RSS ${synced.total.toFixed(1)} MiB after the sync, ${idle.total.toFixed(1)} MiB (anonymous ${idle.anonymous.toFixed(1)}, file-backed ${idle.fileBacked.toFixed(1)}) after ${idleSeconds} s idle`);
  } finally {
    await stopDaemon(daemon, "SIGTERM", 30_000);
  }
}

function record(when: string, program: Program, parts: ResidentParts): void {
  samples.record(`${when} total`, program, parts.total);
  samples.record(`${when} anonymous`, program, parts.anonymous);
  samples.record(`${when} file-backed`, program, parts.fileBacked);
}

function printResults(): void {
  const cell = (values: number[]) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
  const withBaseline = baseline !== undefined;
  const lines = [["MiB, median (min–max)", ...programs.map((p) => p.name), "kube-loom / KCM", "kube-loom / Bun sleeping", ...(withBaseline ? ["kube-loom / baseline"] : [])]];
  const figures: [string, string][] = [
    [`RSS ${settleMs / 1000} s after the sync`, "synced total"],
    [`RSS after ${idleSeconds} s idle`, "idle total"],
    ["  anonymous", "idle anonymous"],
    ["  file-backed", "idle file-backed"],
  ];
  for (const [label, figure] of figures) {
    const of = (program: Program) => samples.of(figure, program);
    lines.push([
      label,
      ...programs.map((p) => cell(of(p.name))),
      ratio(median(of("kube-loom")), median(of("kube-controller-manager"))),
      ratio(median(of("kube-loom")), median(of("Bun, sleeping"))),
      ...(withBaseline ? [ratio(median(of("kube-loom")), median(of("kube-loom, baseline")))] : []),
    ]);
  }
  console.log(
    `empty cluster; kube-loom --controllers=* (replicaset, garbagecollector, network), kube-controller-manager --controllers=replicaset-controller,garbage-collector-controller; ` +
      `both --leader-elect=false, nothing served; ${rounds} interleaved rounds${withBaseline ? `; baseline ${values.baseline}` : ""}`,
  );
  console.log(describeMachine());
  printTable(lines);
}
