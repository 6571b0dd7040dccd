// Garbage-collector graph memory: builds the dependency graph in-process from synthetic
// PartialObjectMetadata (5,000 ReplicaSet-like owners with 9 Pod-like dependents each = 50,000
// objects by default), the way the informers feed it, and reports what the graph adds on top of
// the objects themselves (which the informers' caches hold anyway): heap and RSS, bytes per node.
//   bun bench/gc-graph-memory.ts [objects, default 50000]
import { AbsentOwnerCache } from "../controllers/garbagecollector/absent-owner-cache.ts";
import { GraphBuilder } from "../controllers/garbagecollector/graph-builder.ts";
import type { KubeObject } from "../pkg/kube/objects.ts";
import { printTable } from "./print-table.ts";

const objects = Number(process.argv[2] ?? 50_000);
const dependentsPerOwner = 9;

function measure(): { heap: number; rss: number } {
  Bun.gc(true);
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

/** Objects shaped like what a metadata informer caches for ReplicaSets and their Pods. */
function syntheticObjects(count: number): { owners: KubeObject[]; dependents: KubeObject[] } {
  const owners: KubeObject[] = [];
  const dependents: KubeObject[] = [];
  for (let i = 0; owners.length + dependents.length < count; i++) {
    const namespace = `team-${i % 50}`;
    const owner: KubeObject = {
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: { namespace, name: `web-${i}-7d9f8c6b5`, uid: crypto.randomUUID(), resourceVersion: String(1000 + i), labels: { app: `web-${i}`, "pod-template-hash": "7d9f8c6b5" } },
    };
    owners.push(owner);
    const ref = { apiVersion: "apps/v1", kind: "ReplicaSet", name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
    for (let j = 0; j < dependentsPerOwner && owners.length + dependents.length < count; j++) {
      dependents.push({
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: {
          namespace,
          name: `web-${i}-7d9f8c6b5-${j.toString(36).padStart(5, "x")}`,
          uid: crypto.randomUUID(),
          resourceVersion: String(2_000_000 + i * dependentsPerOwner + j),
          labels: { app: `web-${i}`, "pod-template-hash": "7d9f8c6b5" },
          ownerReferences: [ref],
        },
      });
    }
  }
  return { owners, dependents };
}

const before = measure();
const { owners, dependents } = syntheticObjects(objects);
const withObjects = measure();

const queue = { add: () => undefined, addRateLimited: () => undefined };
const builder = new GraphBuilder({ attemptToDelete: queue, attemptToOrphan: queue, absentOwners: new AbsentOwnerCache() });
const started = performance.now();
const replicaSets = builder.handlerFor("apps/v1", "ReplicaSet");
const pods = builder.handlerFor("v1", "Pod");
// Dependents first, as an informer of Pods may well sync before the ReplicaSets': owners start virtual.
for (const pod of dependents) void pods.onAdd?.(pod, true);
for (const replicaSet of owners) void replicaSets.onAdd?.(replicaSet, true);
const buildMs = performance.now() - started;
const withGraph = measure();

const nodes = builder.graph.size;
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const rows = [
  ["what", "heap MiB", "RSS MiB", "bytes per object"],
  ["synthetic metadata (the informers' share)", mib(withObjects.heap - before.heap), mib(withObjects.rss - before.rss), ((withObjects.heap - before.heap) / nodes).toFixed(0)],
  ["dependency graph on top", mib(withGraph.heap - withObjects.heap), mib(withGraph.rss - withObjects.rss), ((withGraph.heap - withObjects.heap) / nodes).toFixed(0)],
  ["process total", mib(withGraph.heap), mib(withGraph.rss), ""],
];
console.log(`${nodes} graph nodes (${owners.length} owners, ${dependents.length} dependents) built in ${buildMs.toFixed(0)} ms on ${Bun.version} (${process.arch})`);
printTable(rows);
// Keep everything alive until measured.
if (owners.length + dependents.length !== nodes) throw new Error(`expected ${owners.length + dependents.length} nodes, got ${nodes}`);
