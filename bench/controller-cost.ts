// What running the controllers costs: RSS and CPU seconds per minute of kube-loom and of
// kube-controller-manager v1.37 with the same controllers (replicaset and garbage collector),
// first on an idle cluster of 10,000 objects (1,000 owner ConfigMaps with 9 dependents each),
// then while a ReplicaSet scales from 0 to 1,000 Pods at the default client limits. One system
// at a time on the same API server; rounds interleaved, medians reported.
//   bun bench/controller-cost.ts [objects, default 10000] [idle seconds, default 60] [rounds, default 3] [replicas, default 1000] [settle seconds, default 10]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";
import type { KubeObject } from "../pkg/kube/objects.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { ensureNamespace, fastClient, inParallel } from "../test/integration/informer-fixtures.ts";
import { apply, createNamespace, kubectl, replicaSetManifest, waitForStatus } from "../test/replicaset/replicaset-fixture.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { mebibytes, printComparison, seconds } from "./comparison.ts";
import { buildPeerProcesses, comparisonOf, type PeerProcess, type System } from "./peer-processes.ts";
import { cpuSeconds, residentMiB } from "./process-usage.ts";
import { Samples } from "./statistics.ts";

const objects = Number(process.argv[2] ?? 10_000);
const idleSeconds = Number(process.argv[3] ?? 60);
const rounds = Number(process.argv[4] ?? 3);
const replicas = Number(process.argv[5] ?? 1000);
/** After the monitors synced: the collector's first pass over the graph, and the JIT, settle down. */
const settleMs = Number(process.argv[6] ?? 10) * 1000;

const [controlPlane, managers] = await Promise.all([
  ControlPlane.start(),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller,garbage-collector-controller", "kube-loom": "replicaset,garbagecollector" }),
]);
const samples = new Samples<System>();

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

async function measure(client: KubeClient, manager: PeerProcess, round: number): Promise<void> {
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

    const namespace = await createNamespace(client, `cost-${manager.system}-${round}`);
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
      row(`0 → ${replicas} Pods: CPU in all`, "scale cpu total", (value) => `${value.toFixed(2)} CPU s`),
      row(`0 → ${replicas} Pods: duration`, "scale seconds", seconds),
    ],
    `medians of ${rounds} interleaved rounds; controllers replicaset + garbage collector, default client limits (qps 20 / burst 30); idle window ${idleSeconds} s after sync + ${settleMs / 1000} s`,
  );
}
