// What an idle shard-ring replica holds and spends, beside the singleton, on one cluster: an empty
// one (the fixed part), or one kept by cluster-scale.ts (--state-dir). Each configuration starts
// fresh processes, lets them sync and settle, then samples RSS and CPU over the idle window; then
// each process collects its garbage fully and reports its JSC heap (ring-idle/heap-report.ts), so
// that live data can be told from pages the allocators keep. The idle CPU is also split by thread
// (JavaScript, Bun's HTTP client, JIT compilers, mimalloc's scavenger), and the connections each
// process opened in the window are counted (a pool that drops idle ones would pay a TLS handshake
// per renewal). Configurations, one after another:
//   singleton             --leader-elect=false, as cluster-scale.ts runs kube-loom
//   singleton-elected     --leader-elect=true: one Lease renewed every retry period, as deployed
//   ring                  3 replicas started together (--shard-ring)
//   ring-late-joiner      2 replicas, then a third once they have settled (the first two give a third away)
//   ring-slow-renewals    3 replicas with a retry period of 10 s (renew deadline 30 s, lease 40 s)
//   bun bench/ring-idle.ts [--state-dir DIR] [--idle-seconds 60] [--configs singleton,ring,…]
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient } from "../pkg/kube/client.ts";
import { createOwnedTempDir } from "../pkg/testing/owned-temp-dir.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { compile } from "../test/support/kube-loom-binary.ts";
import { TcpProxy } from "../test/support/tcp-proxy.ts";
import { ManagerProcess } from "./cluster-scale/manager-process.ts";
import { apiserverFilterArgs } from "./cluster-scale/ring-variant.ts";
import { ShardRingView } from "./cluster-scale/shard-ring-view.ts";
import { describeMachine } from "./machine.ts";
import type { PeerProcess } from "./peer-processes.ts";
import { printTable } from "./print-table.ts";
import { cpuSeconds, residentMiB, type ThreadKind, threadCpuBetween, threadCpuSeconds } from "./process-usage.ts";
import { type HeapReport, heapReportPath } from "./ring-idle/heap-report.ts";
import { ratio } from "./statistics.ts";

const configs = {
  singleton: { replicas: 1, flags: [] as string[], ring: false, joiner: false },
  "singleton-elected": { replicas: 1, flags: ["--leader-elect=true"], ring: false, joiner: false },
  ring: { replicas: 3, flags: [], ring: true, joiner: false },
  "ring-late-joiner": { replicas: 2, flags: [], ring: true, joiner: true },
  "ring-slow-renewals": { replicas: 3, flags: ["--leader-elect-retry-period=10s", "--leader-elect-renew-deadline=30s", "--leader-elect-lease-duration=40s"], ring: true, joiner: false },
};
type ConfigName = keyof typeof configs;

const { values } = parseArgs({
  options: {
    "state-dir": { type: "string" },
    "idle-seconds": { type: "string", default: "60" },
    configs: { type: "string", default: "singleton,singleton-elected,ring,ring-late-joiner,ring-slow-renewals" },
  },
});
const idleSeconds = Number(values["idle-seconds"]);
if (!Number.isInteger(idleSeconds) || idleSeconds < 1) usage(`--idle-seconds ${values["idle-seconds"]}: expected a whole number ≥ 1`);
const chosen = (values.configs ?? "").split(",").map((name) => name.trim()) as ConfigName[];
for (const name of chosen) if (!(name in configs)) usage(`--configs: unknown configuration "${name}"; expected some of ${Object.keys(configs).join(", ")}`);

const progress = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const workDir = createOwnedTempDir();
const binary = await compile("bench/ring-idle/reporting-main.ts", join(workDir, "kube-loom"));
const plane = await ControlPlane.start({ extraApiserverArgs: apiserverFilterArgs("server"), startTimeoutMs: 600_000, ...(values["state-dir"] ? { dir: values["state-dir"] } : {}) });
const client = await createKubeClient(loadClientConfig({ kubeconfig: plane.kubeconfigPath }), { qps: 0, burst: 0, timeoutMs: 120_000 });
const runId = Date.now().toString(36).slice(-5);
const peer: PeerProcess = {
  system: "kube-loom",
  // The controllers and client limits cluster-scale.ts gives kube-loom.
  command: (kubeconfig, extra = []) => [binary, `--kubeconfig=${kubeconfig}`, "--controllers=replicaset,garbagecollector", "--leader-elect=false", "--secure-port=0", "--port=0", "--kube-api-qps=500", "--kube-api-burst=1000", ...extra],
  monitorsSynced: /resource monitors (have synced|synced in time)/,
};

interface Row {
  config: ConfigName;
  /** Which replica: 1, 2, …; the late joiner is the last. */
  replica: number;
  idleRss: number;
  idleCpu: number;
  /** CPU s/min in the idle window by kind of thread. */
  threads: Record<ThreadKind, number>;
  /** Connections to kube-apiserver opened during the idle window. */
  connectionsOpened: number;
  heap: HeapReport | undefined;
}

const rows: Row[] = [];
try {
  for (const name of chosen) rows.push(...(await measure(name)));
} finally {
  await plane.stop();
}
printRows(rows);

async function start(name: string, flags: readonly string[]): Promise<ManagerProcess> {
  const proxy = await TcpProxy.start("127.0.0.1", Number(new URL(plane.server).port));
  const kubeconfig = plane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}`, path: join(workDir, `${name}.kubeconfig`) });
  return ManagerProcess.start(peer, kubeconfig, proxy, join(workDir, `${name}.log`), flags);
}

async function measure(config: ConfigName): Promise<Row[]> {
  const { replicas, flags, ring, joiner } = configs[config];
  const view = new ShardRingView(client, `idle-${Object.keys(configs).indexOf(config)}-${runId}`);
  const ringFlags = ring ? [`--shard-ring=${view.ring}`, ...flags] : flags;
  const running: ManagerProcess[] = [];
  try {
    for (let i = 0; i < replicas; i++) running.push(await start(`${view.ring}-${i}`, ringFlags));
    await Promise.all(running.map((replica) => replica.monitorsSyncedAfter(600_000)));
    if (ring) await view.settled(replicas, 600_000);
    if (joiner) {
      await Promise.all(running.map((replica) => replica.settle(10_000, 120_000)));
      running.push(await start(`${view.ring}-${replicas}`, ringFlags));
      await running.at(-1)?.monitorsSyncedAfter(600_000);
      await view.settled(replicas + 1, 600_000);
    }
    await Promise.all(running.map((replica) => replica.settle(10_000, 120_000)));
    progress(`${config}: settled; idle for ${idleSeconds} s`);
    const cpuBefore = running.map((replica) => cpuSeconds(replica.pid));
    const threadsBefore = running.map((replica) => threadCpuSeconds(replica.pid));
    const connectionsBefore = running.map((replica) => replica.connectionsOpened);
    const peaks = running.map((replica) => residentMiB(replica.pid));
    const end = performance.now() + idleSeconds * 1000;
    while (performance.now() < end) {
      await Bun.sleep(1000);
      running.forEach((replica, i) => (peaks[i] = Math.max(peaks[i] ?? 0, residentMiB(replica.pid))));
    }
    const cpu = running.map((replica, i) => ((cpuSeconds(replica.pid) - (cpuBefore[i] ?? 0)) / idleSeconds) * 60);
    const threads = running.map((replica, i) => perMinute(threadCpuBetween(threadsBefore[i] ?? new Map(), threadCpuSeconds(replica.pid))));
    const connections = running.map((replica, i) => replica.connectionsOpened - (connectionsBefore[i] ?? 0));
    const heaps = await Promise.all(running.map((replica) => heapReport(replica.pid)));
    return running.map((_, i) => ({
      config,
      replica: i + 1,
      idleRss: peaks[i] ?? Number.NaN,
      idleCpu: cpu[i] ?? Number.NaN,
      threads: threads[i] ?? perMinute(undefined),
      connectionsOpened: connections[i] ?? Number.NaN,
      heap: heaps[i],
    }));
  } finally {
    await Promise.all(running.map((replica) => replica.stop()));
  }
}

/** CPU seconds by kind of thread over the idle window, per minute. */
function perMinute(seconds: Record<ThreadKind, number> | undefined): Record<ThreadKind, number> {
  const rate = (kind: ThreadKind) => (seconds ? (seconds[kind] / idleSeconds) * 60 : Number.NaN);
  return { javascript: rate("javascript"), httpClient: rate("httpClient"), jit: rate("jit"), allocator: rate("allocator"), other: rate("other") };
}

async function heapReport(pid: number): Promise<HeapReport | undefined> {
  const path = heapReportPath(pid);
  const before = existsSync(path) ? readFileSync(path, "utf8") : "";
  process.kill(pid, "SIGUSR2");
  for (let waited = 0; waited < 10_000; waited += 200) {
    await Bun.sleep(200);
    const text = existsSync(path) ? readFileSync(path, "utf8") : "";
    if (text !== "" && text !== before) return JSON.parse(text) as HeapReport;
  }
  return undefined;
}

function printRows(all: readonly Row[]): void {
  const reference = all.find((row) => row.config === "singleton");
  const mib = (value: number | undefined) => (value === undefined ? "" : value.toFixed(1));
  console.log(`ring-idle: ${values["state-dir"] ? `the cluster kept in ${values["state-dir"]}` : "an empty cluster"}; idle window ${idleSeconds} s; MiB; ratios against the singleton (--leader-elect=false)`);
  console.log(describeMachine());
  const replicaLabel = (row: Row) => (configs[row.config].joiner && row.replica === configs[row.config].replicas + 1 ? `${row.replica} (joined)` : String(row.replica));
  printTable([
    ["configuration", "replica", "idle RSS", "/ singleton", "idle CPU s/min", "/ singleton", "after full GC: RSS", "anonymous", "file-backed", "JSC heap live", "heap capacity", "outside heap"],
    ...all.map((row) => {
      const heap = row.heap;
      return [
        row.config,
        replicaLabel(row),
        mib(row.idleRss),
        ratio(row.idleRss, reference?.idleRss),
        row.idleCpu.toFixed(2),
        ratio(row.idleCpu, reference?.idleCpu),
        mib(heap?.rss),
        mib(heap?.anonymous),
        mib(heap?.fileBacked),
        mib(heap?.heapLive),
        mib(heap?.heapCapacity),
        mib(heap?.heapExtra),
      ];
    }),
  ]);
  console.log("\nThe idle CPU by thread (CPU s/min, from schedstat; a thread that exited in the window is missing), and the connections opened in the window:");
  const rate = (value: number) => value.toFixed(3);
  printTable([
    ["configuration", "replica", "JavaScript", "HTTP client", "JIT", "mi-scavenger", "other", "connections opened"],
    ...all.map((row) => [row.config, replicaLabel(row), rate(row.threads.javascript), rate(row.threads.httpClient), rate(row.threads.jit), rate(row.threads.allocator), rate(row.threads.other), String(row.connectionsOpened)]),
  ]);
}

function usage(message: string): never {
  console.error(`ring-idle: ${message}\nusage: bun bench/ring-idle.ts [--state-dir DIR] [--idle-seconds 60] [--configs singleton,ring,…]`);
  process.exit(2);
}
