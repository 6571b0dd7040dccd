// ReplicaSet scaling against upstream: kube-loom's replicaset controller and kube-controller-manager
// v1.37's replicaset-controller, one after the other on the same real API server, at the default
// client limits (--kube-api-qps 20, --kube-api-burst 30) and at 500/1000. Per run: a ReplicaSet at
// 0 replicas is scaled to N with kubectl; measured is the time until a watch on the ReplicaSet shows
// status.replicas at N (all Pods created and seen), the most live Pods at any moment (must not
// exceed N), and the scale back to 0.
// The limit, per round and setting: a plain client (client-go, same limits) creating N Pods from the
// same template, then deleting them.
//   bun bench/replicaset-scale.ts [replicas, default 1000] [rounds, default 3] [settings, default "20,500"]
import { join } from "node:path";
import type { KubeClient } from "../pkg/kube/client.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { fastClient } from "../test/integration/informer-fixtures.ts";
import { apply, createNamespace, kubectl, PodCensus, replicaSetManifest, replicaSetVersionsUntil, statusMatches, waitForStatus } from "../test/replicaset/replicaset-fixture.ts";
import { podFromTemplate } from "../controllers/replicaset/pod-control.ts";
import { clientGoPeer, runClientGoPeer } from "./client-go-peer.ts";
import { type Comparison, printComparison } from "./comparison.ts";
import { buildPeerProcesses, comparisonOf, type PeerProcess, type System } from "./peer-processes.ts";
import { cpuSeconds, waitForQuiet } from "./process-usage.ts";
import { Samples } from "./statistics.ts";

const replicas = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 3);
const qpsSettings = (process.argv[4] ?? "20,500").split(",").map(Number);

/** A client limit: kube-controller-manager's default burst for qps 20, twice the qps above. */
interface Limits {
  qps: number;
  burst: number;
}

const settings: Limits[] = qpsSettings.map((qps) => ({ qps, burst: qps === 20 ? 30 : 2 * qps }));
const label = ({ qps, burst }: Limits) => `qps ${qps} / burst ${burst}`;

const [controlPlane, controllers] = await Promise.all([
  ControlPlane.start(),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller", "kube-loom": "replicaset" }),
  clientGoPeer(),
]);
/** Figures are "<up|down> <qps>". */
const samples = new Samples<System | "limit">();
let maxLive = 0;

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  for (let round = 1; round <= rounds; round++) {
    for (const limits of settings) {
      for (const controller of controllers) await measure(client, controller, limits, round);
      await measureLimit(client, limits, round);
    }
  }
  printResults();
} finally {
  await controlPlane.stop();
}

async function measure(client: KubeClient, controller: PeerProcess, limits: Limits, round: number): Promise<void> {
  const run = `${controller.system}-${limits.qps}-${round}`;
  const flags = [`--kube-api-qps=${limits.qps}`, `--kube-api-burst=${limits.burst}`];
  const process = spawnDaemon(controller.command(controlPlane.kubeconfigPath, flags), join(controlPlane.dir, `${run}.log`));
  try {
    const namespace = await createNamespace(client, `bench-${run}`);
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 0 })]);
    // The controller has synced its caches once it has written the status of the new ReplicaSet.
    const idle = await waitForStatus(client, namespace, "web", { replicas: 0 }, 120_000);
    const census = await PodCensus.start(client, idle);
    try {
      await waitForQuiet(controlPlane.pids);
      const cpuBefore = cpuSeconds(process.pid);
      const upStarted = performance.now();
      const scaledUp = replicaSetVersionsUntil(client, namespace, "web", (rs) => statusMatches(rs, { replicas }), 1_200_000);
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, `--replicas=${replicas}`]);
      await scaledUp;
      const upSeconds = (performance.now() - upStarted) / 1000;
      const upCpu = cpuSeconds(process.pid) - cpuBefore;
      // Where the time goes: the controller's first reaction, its creations, then the status write.
      const seen = (i: number) => (((census.creationTimes[i] ?? upStarted) - upStarted) / 1000).toFixed(2);
      const phases = `first Pod seen ${seen(0)} s, Pod ${replicas / 2} ${seen(replicas / 2 - 1)} s, last ${seen(replicas - 1)} s`;
      const downStarted = performance.now();
      const scaledDown = replicaSetVersionsUntil(client, namespace, "web", (rs) => statusMatches(rs, { replicas: 0 }), 1_200_000);
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=0"]);
      await scaledDown;
      const downSeconds = (performance.now() - downStarted) / 1000;
      console.error(`${controller.system}, ${label(limits)}, round ${round}: up ${upSeconds.toFixed(2)} s (${phases}; controller CPU ${upCpu.toFixed(2)} s), down ${downSeconds.toFixed(2)} s, max live ${census.maxLiveCount}`);
      samples.record(`up ${limits.qps}`, controller.system, upSeconds);
      samples.record(`down ${limits.qps}`, controller.system, downSeconds);
      maxLive = Math.max(maxLive, census.maxLiveCount);
    } finally {
      await census.close();
    }
  } finally {
    await stopDaemon(process, "SIGTERM", 30_000);
  }
}

/** The same creates and deletes by a plain client at the same limits, Pods built from the same template. */
async function measureLimit(client: KubeClient, limits: Limits, round: number): Promise<void> {
  const namespace = await createNamespace(client, `bench-limit-${limits.qps}-${round}`);
  const pod = podFromTemplate(replicaSetManifest({ name: "web", namespace, replicas }));
  // No owner: nothing here is a ReplicaSet's.
  const { ownerReferences: _owner, ...metadata } = pod.metadata ?? {};
  const path = `/api/v1/namespaces/${namespace}/pods`;
  const qps = String(limits.qps);
  await waitForQuiet(controlPlane.pids);
  const burst = String(limits.burst);
  const created = await runClientGoPeer<{ seconds: number }>(["create", controlPlane.kubeconfigPath, path, String(replicas), qps, burst], JSON.stringify({ ...pod, metadata }));
  const deleted = await runClientGoPeer<{ seconds: number }>(["delete", controlPlane.kubeconfigPath, path, qps, burst]);
  console.error(`limit, ${label(limits)}, round ${round}: ${replicas} creates ${created.seconds.toFixed(2)} s, deletes ${deleted.seconds.toFixed(2)} s`);
  samples.record(`up ${limits.qps}`, "limit", created.seconds);
  samples.record(`down ${limits.qps}`, "limit", deleted.seconds);
}

function printResults(): void {
  const rows: Comparison[] = settings.flatMap((limits) =>
    (["up", "down"] as const).map((direction) =>
      comparisonOf(samples, `${direction === "up" ? `0 → ${replicas}` : `${replicas} → 0`}, ${label(limits)}`, `${direction} ${limits.qps}`),
    ),
  );
  printComparison(
    rows,
    `medians of ${rounds} interleaved rounds; time from kubectl scale until status.replicas matches; limit: a plain client's ${replicas} creates, then deletes; most live Pods at any moment: ${maxLive}`,
  );
}
