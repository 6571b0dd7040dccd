// The same kube-loom under other runtime settings: JavaScriptCore options and mimalloc's, given as
// environment variables, or another executable (e.g. one built with `--compile-jit-policy`).
// Each variant scales a ReplicaSet from 0 to N Pods on an empty cluster at the default client
// limits, as controller-cost.ts does; rounds interleaved, medians against the first variant.
//   bun bench/runtime-settings.ts [--pods 1000] [--rounds 2] [--settle 10] [--again] VARIANT...
// VARIANT: `name` alone (this tree's executable as built), `name:VAR=value[,VAR=value]` (with
// that environment), or `name@/path/to/executable`. `--settle`: seconds between the sync and the
// scale-up (controller-cost.ts waits 70: long enough for the runtime's idle collections to run).
// `--again`: each process then scales back to 0 and up once more, a row "NAME, again" of its own:
// what the same scale-up costs once its code has been run and compiled.
// Besides CPU in all: the CPU by kind of thread (the JavaScript thread, the HTTP client's, JIT
// compilers, mimalloc's scavenger, the rest), the JavaScript thread's wake-ups (voluntary context
// switches), and the RSS once the Pods are there.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { fastClient } from "../test/integration/informer-fixtures.ts";
import { apply, createNamespace, kubectl, listPods, replicaSetManifest, waitForStatus } from "../test/replicaset/replicaset-fixture.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { describeMachine } from "./machine.ts";
import { buildPeerProcesses } from "./peer-processes.ts";
import { printTable } from "./print-table.ts";
import { cpuSeconds, residentMiB, threadCpuBetween, threadCpuSeconds, type ThreadKind } from "./process-usage.ts";
import { median, ratio, Samples } from "./statistics.ts";

interface Variant {
  name: string;
  env: Record<string, string>;
  executable: string | undefined;
}

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { pods: { type: "string", default: "1000" }, rounds: { type: "string", default: "2" }, settle: { type: "string", default: "10" }, again: { type: "boolean", default: false } },
});
const pods = Number(values.pods);
const rounds = Number(values.rounds);
const settleSeconds = Number(values.settle);
if (!(pods >= 1) || !(rounds >= 1) || !(settleSeconds >= 0) || positionals.length === 0) {
  console.error(
    `usage: bun bench/runtime-settings.ts [--pods N] [--rounds N] [--settle SECONDS] [--again] VARIANT... (got pods ${values.pods}, rounds ${values.rounds}, settle ${values.settle}, ${positionals.length} variants)`,
  );
  process.exit(2);
}
const variants = positionals.map(parseVariant);
/** The rows of the table: each variant, and with --again its second scale-up, named as their samples are. */
const rows = variants.flatMap((variant) => (values.again ? [{ name: variant.name, variant }, { name: againName(variant), variant }] : [{ name: variant.name, variant }]));

/** The kinds of thread the table shows, and their headings. */
const threadColumns: [ThreadKind, string][] = [
  ["javascript", "JavaScript thread"],
  ["httpClient", "HTTP client"],
  ["jit", "JIT"],
  ["allocator", "scavenger"],
  ["other", "other threads"],
];

const [controlPlane, peers] = await Promise.all([ControlPlane.start(), buildPeerProcesses({ "kube-controller-manager": "", "kube-loom": "replicaset,garbagecollector" })]);
const kubeLoom = peers.find((peer) => peer.system === "kube-loom");
if (kubeLoom === undefined) throw new Error("no kube-loom peer");
const samples = new Samples<string>();
const startedOn = describeMachine();

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  for (let round = 1; round <= rounds; round++) {
    for (const variant of variants) await measure(client, variant, round);
  }
  printResults();
} finally {
  await controlPlane.stop();
}

function parseVariant(text: string): Variant {
  const at = text.indexOf("@");
  if (at > 0) return { name: text.slice(0, at), env: {}, executable: text.slice(at + 1) };
  const colon = text.indexOf(":");
  if (colon < 0) return { name: text, env: {}, executable: undefined };
  const env: Record<string, string> = {};
  for (const setting of text.slice(colon + 1).split(",")) {
    const equals = setting.indexOf("=");
    if (equals <= 0) {
      console.error(`variant ${text}: expected name:VAR=value[,VAR=value], got setting ${JSON.stringify(setting)}`);
      process.exit(2);
    }
    env[setting.slice(0, equals)] = setting.slice(equals + 1);
  }
  return { name: text.slice(0, colon), env, executable: undefined };
}

/** Scales rs/web from 0 to `pods` and records what the process spent under `name`. */
async function scaleUp(client: Awaited<ReturnType<typeof fastClient>>, namespace: string, pid: number, name: string, round: number): Promise<void> {
  const threadsBefore = threadCpuSeconds(pid);
  const wakeUpsBefore = javascriptWakeUps(pid);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, `--replicas=${pods}`]);
  await waitForStatus(client, namespace, "web", { replicas: pods }, 1_200_000);
  const cpu = cpuSeconds(pid) - cpuBefore;
  const seconds = (performance.now() - started) / 1000;
  const byKind = threadCpuBetween(threadsBefore, threadCpuSeconds(pid));
  const wakeUps = javascriptWakeUps(pid) - wakeUpsBefore;
  samples.record("cpu", name, cpu);
  samples.record("seconds", name, seconds);
  samples.record("rss", name, residentMiB(pid));
  samples.record("wake-ups", name, wakeUps);
  for (const [kind] of threadColumns) samples.record(kind, name, byKind[kind]);
  const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  console.error(
    `${name} round ${round}: ${cpu.toFixed(2)} CPU s in ${seconds.toFixed(1)} s (load ${load}); ` +
      threadColumns.map(([kind, heading]) => `${heading} ${byKind[kind].toFixed(2)}`).join(", ") +
      `; the JavaScript thread woke ${wakeUps} times`,
  );
}

function againName(variant: Variant): string {
  return `${variant.name}, again`;
}

/** How often the JavaScript thread went to sleep waiting for something (its voluntary context switches). */
function javascriptWakeUps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, "utf8");
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
}

async function measure(client: Awaited<ReturnType<typeof fastClient>>, variant: Variant, round: number): Promise<void> {
  const namespace = await createNamespace(client, `settings-${variant.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${round}`);
  const logPath = join(controlPlane.dir, `${variant.name.replace(/\W+/g, "_")}-${round}.log`);
  const command = kubeLoom!.command(controlPlane.kubeconfigPath);
  if (variant.executable !== undefined) command[0] = variant.executable;
  const process = spawnDaemon(command, logPath, variant.env);
  try {
    await waitUntil(() => kubeLoom!.monitorsSynced.test(readFileSync(logPath, "utf8")), `${variant.name} to sync (log ${logPath})`, 300_000, 100);
    await Bun.sleep(settleSeconds * 1000); // the start's JIT and the collector's first pass settle
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 0 })]);
    await waitForStatus(client, namespace, "web", { replicas: 0 }, 120_000);
    await scaleUp(client, namespace, process.pid, variant.name, round);
    if (values.again) {
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=0"]);
      await waitUntil(async () => (await listPods(client, namespace)).length === 0, `${variant.name}'s Pods to go`, 1_200_000, 500);
      await Bun.sleep(settleSeconds * 1000);
      await scaleUp(client, namespace, process.pid, againName(variant), round);
    }
  } finally {
    await stopDaemon(process, "SIGTERM", 30_000);
  }
  // Without a manager running: the ReplicaSet goes at once and its Pods with it, before the next variant lists them.
  await kubectl(controlPlane, ["delete", "replicaset", "web", "-n", namespace, "--wait=false"]);
  await kubectl(controlPlane, ["delete", "pods", "--all", "-n", namespace, "--wait=false"]);
}

function printResults(): void {
  const reference = variants[0]?.name ?? "";
  const header = ["variant", "env / executable", `0 → ${pods} Pods: CPU in all`, `/ ${reference}`, "rounds", "duration", "RSS after"];
  const table = [[...header, ...threadColumns.map(([, heading]) => heading), "JavaScript thread wake-ups"]];
  for (const { name, variant } of rows) {
    const cpu = samples.of("cpu", name);
    const setting = variant.executable ?? (Object.entries(variant.env).map(([key, value]) => `${key}=${value}`).join(" ") || "as built");
    table.push([
      name,
      setting,
      `${median(cpu).toFixed(2)} CPU s`,
      ratio(median(cpu), median(samples.of("cpu", reference))),
      cpu.map((value) => value.toFixed(2)).join(", "),
      `${median(samples.of("seconds", name)).toFixed(1)} s`,
      `${median(samples.of("rss", name)).toFixed(0)} MiB`,
      ...threadColumns.map(([kind]) => median(samples.of(kind, name)).toFixed(2)),
      median(samples.of("wake-ups", name)).toFixed(0),
    ]);
  }
  console.log(`${startedOn}\nmedians of ${rounds} interleaved rounds, each ${settleSeconds} s after the sync; load average at the end ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  printTable(table);
}
