// Garbage collector against upstream: kube-loom's garbagecollector and kube-controller-manager
// v1.33's garbage-collector-controller, one after the other on the same real API server, same
// client settings (--kube-api-qps 20, so 40 for the collector in both). Measured per process:
//   - start-up until all resource monitors synced, and RSS then, with a cluster of N objects
//     (5,000 owners with 9 dependents each by default: the graph has edges);
//   - a background cascade: delete an owner ConfigMap with D dependents, time until all are gone.
//   bun bench/gc-cascade.ts [dependents, default 1000] [objects, default 50000] [rounds, default 2]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinaries } from "../test/controlplane/binaries.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { type DaemonProcess, spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { ensureNamespace, fastClient, inParallel } from "../test/integration/informer-fixtures.ts";
import { buildKubeLoom } from "../test/support/kube-loom-binary.ts";
import type { KubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";
import type { KubeObject } from "../pkg/kube/objects.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { printTable } from "./print-table.ts";

const dependents = Number(process.argv[2] ?? 1000);
const objects = Number(process.argv[3] ?? 50_000);
const rounds = Number(process.argv[4] ?? 2);

interface Peer {
  name: string;
  command(kubeconfig: string): string[];
  /** A log line saying the collector's monitors synced (or gave up waiting) and workers run. */
  ready: RegExp;
}

interface Measurement {
  peer: string;
  syncSeconds: number;
  rssMiB: number;
  cascadeSeconds: number;
}

const [controlPlane, binaries, kubeLoomBinary] = await Promise.all([
  ControlPlane.start(),
  ensureBinaries({ withControllerManager: true }),
  buildKubeLoom(),
]);

const peers: Peer[] = [
  {
    name: "kube-controller-manager",
    command: (kubeconfig) => [
      binaries.kubeControllerManager,
      `--kubeconfig=${kubeconfig}`,
      "--controllers=garbage-collector-controller",
      "--leader-elect=false",
      "--secure-port=0",
    ],
    ready: /resource monitors (have synced|could not be synced)/,
  },
  {
    name: "kube-loom",
    command: (kubeconfig) => [kubeLoomBinary, `--kubeconfig=${kubeconfig}`, "--controllers=garbagecollector", "--leader-elect=false", "--port=0"],
    ready: /resource monitors (have synced|synced in time)/,
  },
];

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  await createCluster(client);
  const results: Measurement[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const peer of peers) results.push(await measure(client, peer, round));
  }
  printResults(results);
} finally {
  await controlPlane.stop();
}

async function createCluster(client: KubeClient): Promise<void> {
  const started = performance.now();
  const owners = Math.ceil(objects / 10);
  await inParallel(
    Array.from({ length: 50 }, (_, i) => `team-${i}`),
    8,
    (ns) => ensureNamespace(client, ns),
  );
  await inParallel(Array.from({ length: owners }, (_, i) => i), 32, async (i) => {
    const namespace = `team-${i % 50}`;
    const configMaps = client.dynamic.resource(resources.configMaps, namespace);
    const owner = await configMaps.create({ metadata: { name: `owner-${i}` }, data: { payload: "x".repeat(16) } } as KubeObject);
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: `owner-${i}`, uid: owner.metadata?.uid ?? "" };
    for (let j = 0; j < 9 && i * 10 + j + 1 < objects; j++) {
      await configMaps.create({ metadata: { name: `owner-${i}-${j}`, ownerReferences: [ref] }, data: { payload: "x".repeat(16) } } as KubeObject);
    }
  });
  console.error(`created ${objects} ConfigMaps (${owners} owners) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function measure(client: KubeClient, peer: Peer, round: number): Promise<Measurement> {
  const logPath = join(controlPlane.dir, `${peer.name}-${round}.log`);
  const started = performance.now();
  const process = spawnDaemon(peer.command(controlPlane.kubeconfigPath), logPath);
  try {
    await waitUntil(() => peer.ready.test(readFileSync(logPath, "utf8")), `${peer.name} to sync (log ${logPath})`, 300_000, 200);
    const syncSeconds = (performance.now() - started) / 1000;
    await Bun.sleep(5000);
    const rssMiB = residentMiB(process);
    const cascadeSeconds = await cascade(client, `cascade-${peer.name}-${round}`);
    console.error(`${peer.name} round ${round}: synced in ${syncSeconds.toFixed(1)} s, RSS ${rssMiB.toFixed(0)} MiB, cascade ${cascadeSeconds.toFixed(1)} s`);
    return { peer: peer.name, syncSeconds, rssMiB, cascadeSeconds };
  } finally {
    await stopDaemon(process, "SIGTERM", 30_000);
  }
}

/** Seconds from deleting an owner to the last of its dependents gone. */
async function cascade(client: KubeClient, namespace: string): Promise<number> {
  await ensureNamespace(client, namespace);
  const configMaps = client.dynamic.resource(resources.configMaps, namespace);
  const owner = await configMaps.create({ metadata: { name: "owner" } });
  const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid ?? "" };
  const names = Array.from({ length: dependents }, (_, i) => `dependent-${i}`);
  await inParallel(names, 32, (name) => configMaps.create({ metadata: { name, ownerReferences: [ref] } }));
  const started = performance.now();
  await configMaps.delete("owner", { propagationPolicy: "Background" });
  await waitUntil(async () => (await count(client, namespace)) === 0, `the cascade in ${namespace}`, 600_000, 200);
  return (performance.now() - started) / 1000;
}

/** Objects left in the namespace, from a one-item page (cheap to poll). */
async function count(client: KubeClient, namespace: string): Promise<number> {
  const page = await client.dynamic.resource(resources.configMaps, namespace).list({ limit: 1 });
  return page.items.length + (page.metadata?.remainingItemCount ?? 0);
}

function residentMiB(process: DaemonProcess): number {
  const status = readFileSync(`/proc/${process.pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

function printResults(results: Measurement[]): void {
  const mean = (peer: string, pick: (m: Measurement) => number) => {
    const values = results.filter((m) => m.peer === peer).map(pick);
    return values.reduce((a, b) => a + b, 0) / values.length;
  };
  const upstream = peers[0]?.name ?? "";
  const header = ["collector", "monitors synced s", `RSS MiB (${objects} objects)`, `cascade of ${dependents} s`, "deletions/s", "cascade vs KCM", "RSS vs KCM"];
  const lines = [header];
  for (const { name } of peers) {
    const cascadeSeconds = mean(name, (m) => m.cascadeSeconds);
    const rss = mean(name, (m) => m.rssMiB);
    lines.push([
      name,
      mean(name, (m) => m.syncSeconds).toFixed(1),
      rss.toFixed(0),
      cascadeSeconds.toFixed(1),
      (dependents / cascadeSeconds).toFixed(0),
      `${(cascadeSeconds / mean(upstream, (m) => m.cascadeSeconds)).toFixed(2)}×`,
      `${(rss / mean(upstream, (m) => m.rssMiB)).toFixed(2)}×`,
    ]);
  }
  console.log(`means over ${rounds} round(s), alternating; both collectors at 40 QPS (2 × --kube-api-qps 20)`);
  printTable(lines);
}
