// Builds the benchmark's cluster through the API, as fast as the API server takes it: Pods are
// created the way the ReplicaSet controller creates them (from the template, controlled by their
// ReplicaSet, no node), then marked Running and Ready through the status subresource as a kubelet
// would, so the ReplicaSets' ready and available counts are real. ConfigMap trees give the
// garbage collector owners and dependents to track.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { podFromTemplate } from "../../controllers/replicaset/pod-control.ts";
import { ensureNamespace, inParallel } from "../../test/integration/informer-fixtures.ts";
import { type Pod, type ReplicaSet, replicaSetManifest, setPodStatus } from "../../test/replicaset/replicaset-fixture.ts";
import { type ClusterShape, configMapOwnerAt, namespaceNames, podsPerReplicaSet, probeNamespace, replicaSetAt } from "./shape.ts";

export interface SeedTimes {
  replicaSetsSeconds: number;
  podsSeconds: number;
  configMapsSeconds: number;
}

/** Requests in flight while seeding: enough to keep kube-apiserver and etcd busy on 2 cores. */
const parallel = 96;

/**
 * Seeds the cluster, unless the control plane's folder `dir` (kept with --state-dir) holds one of
 * this shape already; returns how long seeding took (then or now).
 */
export async function seedOnce(client: KubeClient, dir: string, shape: ClusterShape, progress: (line: string) => void): Promise<SeedTimes> {
  const marker = join(dir, "cluster-scale-seed.json");
  if (existsSync(marker)) {
    const seeded = JSON.parse(readFileSync(marker, "utf8")) as { shape: Partial<ClusterShape>; times: SeedTimes };
    // Fields added since, at the value the seed was made with.
    const seededShape: ClusterShape = { ...shape, namespaceSuffix: "", ...seeded.shape };
    if (JSON.stringify(seededShape) === JSON.stringify(shape)) {
      progress(`cluster already seeded in ${dir}; not seeding again`);
      return seeded.times;
    }
    throw new Error(`--state-dir ${dir} holds a cluster of another shape (${JSON.stringify(seededShape)}); expected ${JSON.stringify(shape)} or an empty folder`);
  }
  const times = await seedCluster(client, shape, progress);
  writeFileSync(marker, JSON.stringify({ shape, times }));
  return times;
}

async function seedCluster(client: KubeClient, shape: ClusterShape, progress: (line: string) => void): Promise<SeedTimes> {
  await inParallel([...namespaceNames(shape), probeNamespace], 16, (namespace) => ensureNamespace(client, namespace));
  const replicaSetsSeconds = await timed(() => createReplicaSets(client, shape));
  progress(`${shape.replicaSets} ReplicaSets in ${replicaSetsSeconds.toFixed(1)} s`);
  const podsSeconds = await timed(() => createPods(client, shape, progress));
  progress(`${shape.pods} Pods created and Ready in ${podsSeconds.toFixed(1)} s`);
  const configMapsSeconds = await timed(() => createConfigMapTrees(client, shape));
  progress(`${shape.configMapOwners * (1 + shape.dependentsPerOwner)} ConfigMaps in ${configMapsSeconds.toFixed(1)} s`);
  return { replicaSetsSeconds, podsSeconds, configMapsSeconds };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

function indices(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}

async function createReplicaSets(client: KubeClient, shape: ClusterShape): Promise<void> {
  await inParallel(indices(shape.replicaSets), parallel, async (i) => {
    const { namespace, name } = replicaSetAt(shape, i);
    const manifest = replicaSetManifest({ name, namespace, replicas: podsPerReplicaSet(shape) });
    await client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).create(manifest);
  });
}

/** Every ReplicaSet's Pods; each Pod is created, then made Ready, by one worker. */
async function createPods(client: KubeClient, shape: ClusterShape, progress: (line: string) => void): Promise<void> {
  const perReplicaSet = podsPerReplicaSet(shape);
  const owners = await Promise.all(
    indices(shape.replicaSets).map(async (i) => {
      const { namespace, name } = replicaSetAt(shape, i);
      return client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).get(name);
    }),
  );
  const readySince = Date.now() - 60_000;
  let done = 0;
  await inParallel(indices(shape.pods), parallel, async (i) => {
    const owner = owners[Math.floor(i / perReplicaSet)] as ReplicaSet;
    const pods = client.dynamic.resource<Pod>(resources.pods, owner.metadata?.namespace);
    const pod = await pods.create(podFromTemplate(owner));
    await setPodStatus(client, pod, { phase: "Running", readySince });
    if (++done % 10_000 === 0) progress(`${done} Pods`);
  });
}

async function createConfigMapTrees(client: KubeClient, shape: ClusterShape): Promise<void> {
  const payload = "x".repeat(256);
  await inParallel(indices(shape.configMapOwners), parallel, async (i) => {
    const { namespace, name } = configMapOwnerAt(shape, i);
    const configMaps = client.dynamic.resource(resources.configMaps, namespace);
    const owner = await configMaps.create({ metadata: { name }, data: { payload } });
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata?.uid ?? "" }];
    for (let j = 0; j < shape.dependentsPerOwner; j++) {
      await configMaps.create({ metadata: { name: `${name}-${j}`, ownerReferences }, data: { payload } });
    }
  });
}
