// Garbage collector against upstream: kube-loom's garbagecollector and kube-controller-manager
// v1.37's garbage-collector-controller, one after the other on the same real API server, same
// client settings (--kube-api-qps 20, so 40 for the collector in both; burst 30). Per round and
// collector, in a cluster of N ConfigMaps (5,000 owners with 9 dependents each by default):
//   - start-up until all resource monitors synced, and RSS then;
//   - cascades, each timed from deleting the root to the last object gone: 1,000 dependents with
//     background and with foreground propagation, and a 3-level tree (1 → 30 → 30×30) with each.
// Per round also the limits: discovery plus every monitored resource's metadata LIST read
// undecoded at the informers' QPS, and a plain client DELETEing the same number of objects at
// the collector's QPS.
//   bun bench/gc-cascade.ts [dependents, default 1000] [objects, default 50000] [rounds, default 3]
// With 0 dependents only the start-up is measured (no cascades), which takes minutes, not ~20.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { ensureNamespace, fastClient, inParallel } from "../test/integration/informer-fixtures.ts";
import type { KubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";
import type { KubeObject, OwnerReference } from "../pkg/kube/objects.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { clientGoPeer, runClientGoPeer } from "./client-go-peer.ts";
import { type Comparison, mebibytes, printComparison } from "./comparison.ts";
import { buildPeerProcesses, comparisonOf, type PeerProcess, type System } from "./peer-processes.ts";
import { residentMiB, waitForQuiet } from "./process-usage.ts";
import { Samples } from "./statistics.ts";

const dependents = Number(process.argv[2] ?? 1000);
const objects = Number(process.argv[3] ?? 50_000);
const rounds = Number(process.argv[4] ?? 3);
/** The collector's client in both: twice --kube-api-qps, --kube-api-burst as it is. */
const collectorQps = "40";
const collectorBurst = "30";
/** The informers' client in both: --kube-api-qps and --kube-api-burst. */
const informerQps = "20";
const informerBurst = "30";
const treeWidth = 30;

type Propagation = "Background" | "Foreground";

interface Cascade {
  name: string;
  propagation: Propagation;
  /** Creates the objects in `namespace`; returns the root's name and how many objects the collector must delete. */
  create(client: KubeClient, namespace: string): Promise<{ root: string; collected: number }>;
}

const cascades: Cascade[] = (dependents === 0 ? [] : (["Background", "Foreground"] as const)).flatMap((propagation) => [
  { name: `${propagation.toLowerCase()} cascade of ${dependents.toLocaleString("en-US")} dependents`, propagation, create: createFlat },
  { name: `${propagation.toLowerCase()} tree 1 → ${treeWidth} → ${treeWidth}×${treeWidth}`, propagation, create: createTree },
]);

const [controlPlane, collectors] = await Promise.all([
  ControlPlane.start(),
  buildPeerProcesses({ "kube-controller-manager": "garbage-collector-controller", "kube-loom": "garbagecollector" }),
  clientGoPeer(),
]);
const samples = new Samples<System | "limit">();

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  await createCluster(client);
  for (let round = 1; round <= rounds; round++) {
    for (const collector of collectors) await measure(client, collector, round);
    await measureLimits(client, round);
  }
  printResults();
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
    const owner = await configMaps.create({ metadata: { name: `owner-${i}` }, data: { payload: "x".repeat(16) } });
    for (let j = 0; j < 9 && i * 10 + j + 1 < objects; j++) {
      await configMaps.create({ metadata: { name: `owner-${i}-${j}`, ownerReferences: [ownerRef(owner)] }, data: { payload: "x".repeat(16) } });
    }
  });
  console.error(`created ${objects} ConfigMaps (${owners} owners) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** A reference as controllers write it: blocking, so a foreground deletion waits for the dependent. */
function ownerRef(owner: KubeObject): OwnerReference {
  return { apiVersion: "v1", kind: "ConfigMap", name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
}

async function createFlat(client: KubeClient, namespace: string): Promise<{ root: string; collected: number }> {
  const configMaps = client.dynamic.resource(resources.configMaps, namespace);
  const owner = await configMaps.create({ metadata: { name: "owner" } });
  const names = Array.from({ length: dependents }, (_, i) => `dependent-${i}`);
  await inParallel(names, 32, (name) => configMaps.create({ metadata: { name, ownerReferences: [ownerRef(owner)] } }));
  return { root: "owner", collected: dependents };
}

async function createTree(client: KubeClient, namespace: string): Promise<{ root: string; collected: number }> {
  const configMaps = client.dynamic.resource(resources.configMaps, namespace);
  const root = await configMaps.create({ metadata: { name: "root" } });
  const children: KubeObject[] = [];
  await inParallel(Array.from({ length: treeWidth }, (_, i) => `child-${i}`), 32, async (name) => {
    children.push(await configMaps.create({ metadata: { name, ownerReferences: [ownerRef(root)] } }));
  });
  const grandchildren = children.flatMap((child) => Array.from({ length: treeWidth }, (_, j) => ({ child, name: `${child.metadata?.name}-${j}` })));
  await inParallel(grandchildren, 32, ({ child, name }) => configMaps.create({ metadata: { name, ownerReferences: [ownerRef(child)] } }));
  return { root: "root", collected: treeWidth + treeWidth * treeWidth };
}

async function measure(client: KubeClient, collector: PeerProcess, round: number): Promise<void> {
  const logPath = join(controlPlane.dir, `${collector.system}-${round}.log`);
  await waitForQuiet(controlPlane.pids);
  const started = performance.now();
  const process = spawnDaemon(collector.command(controlPlane.kubeconfigPath), logPath);
  try {
    await waitUntil(() => collector.monitorsSynced.test(readFileSync(logPath, "utf8")), `${collector.system} to sync (log ${logPath})`, 300_000, 50);
    const syncSeconds = (performance.now() - started) / 1000;
    samples.record("sync", collector.system, syncSeconds);
    await Bun.sleep(5000);
    const rss = residentMiB(process.pid);
    samples.record("rss", collector.system, rss);
    const times: string[] = [];
    for (const [i, cascade] of cascades.entries()) {
      const seconds = await runCascade(client, cascade, `cascade-${collector.system}-${round}-${i}`);
      samples.record(cascade.name, collector.system, seconds);
      times.push(seconds.toFixed(1));
    }
    const cascaded = times.length > 0 ? `, cascades ${times.join(" / ")} s` : "";
    console.error(`${collector.system} round ${round}: synced in ${syncSeconds.toFixed(2)} s, RSS ${rss.toFixed(0)} MiB${cascaded}`);
  } finally {
    await stopDaemon(process, "SIGTERM", 30_000);
  }
}

/** Seconds from deleting the root to the last object of the namespace gone. */
async function runCascade(client: KubeClient, cascade: Cascade, namespace: string): Promise<number> {
  await ensureNamespace(client, namespace);
  const { root } = await cascade.create(client, namespace);
  const started = performance.now();
  await client.dynamic.resource(resources.configMaps, namespace).delete(root, { propagationPolicy: cascade.propagation });
  await waitUntil(async () => (await count(client, namespace)) === 0, `the ${cascade.name} in ${namespace}`, 900_000, 100);
  return (performance.now() - started) / 1000;
}

/** The same work without a collector: its start-up reads, and its DELETEs by a plain client at its QPS. */
async function measureLimits(client: KubeClient, round: number): Promise<void> {
  const kubeconfig = controlPlane.kubeconfigPath;
  await waitForQuiet(controlPlane.pids);
  const lists = await runClientGoPeer<{ syncMs: number; resources: number }>(["monitor-lists", kubeconfig, informerQps, informerBurst]);
  samples.record("sync", "limit", lists.syncMs / 1000);
  const deletes: string[] = [];
  // Both propagations delete the same objects: one limit per shape.
  for (const [shape, create] of (cascades.length === 0 ? [] : [createFlat, createTree]).entries()) {
    const namespace = `limit-${round}-${shape}`;
    await ensureNamespace(client, namespace);
    const { root, collected } = await create(client, namespace);
    // The root is the user's to delete (with no collector running, its dependents stay); the rest is the collector's.
    await client.dynamic.resource(resources.configMaps, namespace).delete(root);
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const { seconds } = await runClientGoPeer<{ seconds: number }>(["delete", kubeconfig, path, collectorQps, collectorBurst]);
    for (const cascade of cascades) if (cascade.create === create) samples.record(cascade.name, "limit", seconds);
    deletes.push(`${collected} in ${seconds.toFixed(1)} s`);
  }
  const deleted = deletes.length > 0 ? `; deletes ${deletes.join(", ")}` : "";
  console.error(`limits round ${round}: ${lists.resources} monitor lists in ${(lists.syncMs / 1000).toFixed(2)} s${deleted}`);
}

/** Objects left in the namespace, from a one-item page (cheap to poll). */
async function count(client: KubeClient, namespace: string): Promise<number> {
  const page = await client.dynamic.resource(resources.configMaps, namespace).list({ limit: 1 });
  return page.items.length + (page.metadata?.remainingItemCount ?? 0);
}

function printResults(): void {
  const row = (scenario: string, figure: string, extra: Partial<Comparison> = {}) => comparisonOf(samples, scenario, figure, extra);
  const rows = [
    row(`monitors synced, ${objects.toLocaleString("en-US")} objects (limit: discovery + metadata LISTs)`, "sync"),
    row("RSS after sync", "rss", { format: mebibytes }),
    ...cascades.map((cascade) => row(`${cascade.name} (limit: plain DELETEs)`, cascade.name)),
  ];
  printComparison(
    rows,
    `medians of ${rounds} interleaved rounds; informers (and the LIST limit) at qps ${informerQps} / burst ${informerBurst}, ` +
      `collectors (and the DELETE limit) at qps ${collectorQps} / burst ${collectorBurst}`,
  );
}
