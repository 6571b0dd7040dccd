// What running the controllers costs: RSS and CPU seconds per minute of kube-loom and of
// kube-controller-manager v1.37 with the same controllers (replicaset and garbage collector),
// first on an idle cluster of 10,000 objects (1,000 owner ConfigMaps with 9 dependents each),
// then while a ReplicaSet scales from 0 to 1,000 Pods at the default client limits. One system
// at a time on the same API server; rounds interleaved, medians reported.
//   bun bench/controller-cost.ts [objects, default 10000] [idle seconds, default 60] [rounds, default 3] [replicas, default 1000] [settle seconds, default 10] [--baseline DIR]
// --baseline DIR: also measure another kube-loom source tree (e.g. `git archive main | tar -x -C DIR`)
// in the same rounds, and print kube-loom against it.
// "CPU above idle" is a scale-up's CPU less what the same process spent idle over as long: the
// background each manager pays whether or not Pods are created (kube-controller-manager's grows
// with the objects in the cluster) is in "CPU in all" but is not the scale-up's cost.
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { KubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";
import type { KubeObject } from "../pkg/kube/objects.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { ensureNamespace, fastClient, inParallel } from "../test/integration/informer-fixtures.ts";
import { apply, createNamespace, kubectl, replicaSetManifest, waitForStatus } from "../test/replicaset/replicaset-fixture.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { compile } from "../test/support/kube-loom-binary.ts";
import { mebibytes, printComparison, seconds } from "./comparison.ts";
import { buildPeerProcesses, comparisonOf, type PeerProcess } from "./peer-processes.ts";
import { printTable } from "./print-table.ts";
import { cpuSeconds, residentMiB } from "./process-usage.ts";
import { median, ratio, Samples } from "./statistics.ts";

const { values, positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { baseline: { type: "string" } } });
const objects = Number(positionals[0] ?? 10_000);
const idleSeconds = Number(positionals[1] ?? 60);
const rounds = Number(positionals[2] ?? 3);
const replicas = Number(positionals[3] ?? 1000);
/** After the monitors synced: the collector's first pass over the graph, and the JIT, settle down. */
const settleMs = Number(positionals[4] ?? 10) * 1000;
const baselineRoot = values.baseline === undefined ? undefined : resolve(values.baseline);
if (baselineRoot !== undefined && !existsSync(join(baselineRoot, "cmd/kube-loom/main.ts"))) {
  console.error(`--baseline ${values.baseline}: not a kube-loom source tree (no cmd/kube-loom/main.ts)`);
  process.exit(2);
}

/** A manager measured here: one of the two peers, or the baseline tree's kube-loom. */
type Manager = Omit<PeerProcess, "system"> & { system: string };
const baselineName = "kube-loom, baseline";

const [controlPlane, peers, baselineBinary] = await Promise.all([
  ControlPlane.start(),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller,garbage-collector-controller", "kube-loom": "replicaset,garbagecollector" }),
  baselineRoot === undefined ? undefined : buildBaseline(baselineRoot),
]);
const managers: Manager[] = [...peers];
const kubeLoom = peers.find((peer) => peer.system === "kube-loom");
if (baselineBinary !== undefined && kubeLoom !== undefined) {
  // The same command line, the baseline's executable.
  managers.push({ ...kubeLoom, system: baselineName, command: (kubeconfig, extra) => [baselineBinary, ...kubeLoom.command(kubeconfig, extra).slice(1)] });
}
const samples = new Samples<string>();

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  await createObjects(client);
  for (let round = 1; round <= rounds; round++) {
    for (const manager of managers) await measure(client, manager, round);
  }
  printResults();
} finally {
  await controlPlane.stop();
}

/** The baseline tree's kube-loom, compiled with its own build script and this tree's packages. */
async function buildBaseline(root: string): Promise<string> {
  if (!existsSync(join(root, "node_modules"))) symlinkSync(resolve(import.meta.dir, "../node_modules"), join(root, "node_modules"));
  return compile("cmd/kube-loom/main.ts", join(mkdtempSync(join(tmpdir(), "controller-cost-")), "kube-loom-baseline"), root);
}

async function createObjects(client: KubeClient): Promise<void> {
  const started = performance.now();
  const owners = Math.ceil(objects / 10);
  const namespaces = Array.from({ length: 10 }, (_, i) => `team-${i}`);
  await inParallel(namespaces, 10, (namespace) => ensureNamespace(client, namespace));
  await inParallel(Array.from({ length: owners }, (_, i) => i), 32, async (i) => {
    const namespace = `team-${i % 10}`;
    const configMaps = client.dynamic.resource(resources.configMaps, namespace);
    const owner = await configMaps.create({ metadata: { name: `owner-${i}` }, data: { payload: "x".repeat(256) } });
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: `owner-${i}`, uid: owner.metadata?.uid ?? "" };
    for (let j = 0; j < 9 && i * 10 + j + 1 < objects; j++) {
      await configMaps.create({ metadata: { name: `owner-${i}-${j}`, ownerReferences: [ref] }, data: { payload: "x".repeat(256) } });
    }
  });
  console.error(`created ${objects} ConfigMaps in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** Samples the process's RSS every `intervalMs` while `work` runs; returns the samples. */
async function sampleRss(pid: number, intervalMs: number, work: Promise<unknown>): Promise<number[]> {
  const rss: number[] = [];
  let done = false;
  void work.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    rss.push(residentMiB(pid));
    await Promise.race([Bun.sleep(intervalMs), work.catch(() => undefined)]);
  }
  await work;
  return rss;
}

async function measure(client: KubeClient, manager: Manager, round: number): Promise<void> {
  const logPath = join(controlPlane.dir, `${manager.system}-${round}.log`);
  const process = spawnDaemon(manager.command(controlPlane.kubeconfigPath), logPath);
  try {
    await waitUntil(() => manager.monitorsSynced.test(readFileSync(logPath, "utf8")), `${manager.system} to sync (log ${logPath})`, 300_000, 100);
    await Bun.sleep(settleMs);

    const idleCpu = cpuSeconds(process.pid);
    const idleRss = await sampleRss(process.pid, 1000, Bun.sleep(idleSeconds * 1000));
    const idleCpuPerMinute = ((cpuSeconds(process.pid) - idleCpu) / idleSeconds) * 60;
    samples.record("idle cpu", manager.system, idleCpuPerMinute);
    samples.record("idle rss", manager.system, Math.max(...idleRss));

    const namespace = await createNamespace(client, `cost-${manager.system.replace(/\W+/g, "-")}-${round}`);
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 0 })]);
    await waitForStatus(client, namespace, "web", { replicas: 0 }, 120_000);
    const scaleCpu = cpuSeconds(process.pid);
    const started = performance.now();
    const scaling = kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, `--replicas=${replicas}`]).then(() =>
      waitForStatus(client, namespace, "web", { replicas }, 1_200_000),
    );
    const scaleRss = await sampleRss(process.pid, 500, scaling);
    const scaleSeconds = (performance.now() - started) / 1000;
    const scaleCpuSeconds = cpuSeconds(process.pid) - scaleCpu;
    samples.record("scale cpu", manager.system, (scaleCpuSeconds / scaleSeconds) * 60);
    samples.record("scale cpu total", manager.system, scaleCpuSeconds);
    samples.record("scale cpu above idle", manager.system, scaleCpuSeconds - (idleCpuPerMinute / 60) * scaleSeconds);
    samples.record("scale rss", manager.system, Math.max(...scaleRss));
    samples.record("scale seconds", manager.system, scaleSeconds);
    console.error(
      `${manager.system} round ${round}: idle ${idleCpuPerMinute.toFixed(2)} CPU s/min, RSS ≤ ${Math.max(...idleRss).toFixed(0)} MiB; ` +
        `0 → ${replicas} in ${scaleSeconds.toFixed(1)} s: ${scaleCpuSeconds.toFixed(2)} CPU s, RSS ≤ ${Math.max(...scaleRss).toFixed(0)} MiB`,
    );
    // Back to an idle cluster for the next system (not measured).
    await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=0"]);
    await waitForStatus(client, namespace, "web", { replicas: 0 }, 1_200_000);
  } finally {
    await stopDaemon(process, "SIGTERM", 30_000);
  }
}

function printResults(): void {
  const row = (scenario: string, figure: string, format: (value: number) => string) => comparisonOf(samples, scenario, figure, { format });
  const cpuPerMinute = (value: number) => `${value.toFixed(2)} CPU s/min`;
  printComparison(
    [
      row(`idle, ${objects.toLocaleString("en-US")} objects: peak RSS`, "idle rss", mebibytes),
      row(`idle, ${objects.toLocaleString("en-US")} objects: CPU`, "idle cpu", cpuPerMinute),
      row(`0 → ${replicas} Pods: peak RSS`, "scale rss", mebibytes),
      row(`0 → ${replicas} Pods: CPU`, "scale cpu", cpuPerMinute),
      row(`0 → ${replicas} Pods: CPU in all`, "scale cpu total", cpuTotal),
      row(`0 → ${replicas} Pods: CPU above idle`, "scale cpu above idle", cpuTotal),
      row(`0 → ${replicas} Pods: duration`, "scale seconds", seconds),
    ],
    `medians of ${rounds} interleaved rounds; controllers replicaset + garbage collector, default client limits (qps 20 / burst 30); idle window ${idleSeconds} s after sync + ${settleMs / 1000} s`,
  );
  if (baselineBinary === undefined) return;
  const lines = [["scenario", "kube-loom", "kube-loom, baseline", "kube-loom / baseline", "rounds (kube-loom; baseline)"]];
  const figures: [string, string, (value: number) => string][] = [
    ["idle CPU", "idle cpu", cpuPerMinute],
    [`0 → ${replicas} Pods: CPU in all`, "scale cpu total", cpuTotal],
    [`0 → ${replicas} Pods: CPU above idle`, "scale cpu above idle", cpuTotal],
    [`0 → ${replicas} Pods: peak RSS`, "scale rss", mebibytes],
  ];
  for (const [scenario, figure, format] of figures) {
    const own = samples.of(figure, "kube-loom");
    const base = samples.of(figure, baselineName);
    const list = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
    lines.push([scenario, format(median(own)), format(median(base)), ratio(median(own), median(base)), `${list(own)}; ${list(base)}`]);
  }
  console.log(`\nkube-loom against the baseline tree ${values.baseline}, same rounds:`);
  printTable(lines);
}

function cpuTotal(value: number): string {
  return `${value.toFixed(2)} CPU s`;
}
