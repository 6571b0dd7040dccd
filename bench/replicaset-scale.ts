// ReplicaSet scale-up against upstream: kube-loom's replicaset controller and kube-controller-manager
// v1.33's replicaset-controller, one after the other on the same real API server, at the default
// client limits (--kube-api-qps 20, --kube-api-burst 30) and at 500/1000. Per run: a ReplicaSet at
// 0 replicas is scaled to N with kubectl; measured is the time until status.replicas is N (all Pods
// created and seen), the most live Pods at any moment (must not exceed N), and the scale back to 0.
//   bun bench/replicaset-scale.ts [replicas, default 1000] [rounds, default 1]
import { join } from "node:path";
import type { KubeClient } from "../pkg/kube/client.ts";
import { ensureBinaries } from "../test/controlplane/binaries.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { fastClient } from "../test/integration/informer-fixtures.ts";
import { apply, createNamespace, kubectl, PodCensus, replicaSetManifest, waitForStatus } from "../test/replicaset/replicaset-fixture.ts";
import { buildKubeLoom } from "../test/support/kube-loom-binary.ts";
import { printTable } from "./print-table.ts";

const replicas = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 1);

interface Peer {
  name: string;
  command(kubeconfig: string, limits: string[]): string[];
}

interface Limits {
  label: string;
  args: string[];
}

interface Measurement {
  peer: string;
  limits: string;
  upSeconds: number;
  downSeconds: number;
  maxLive: number;
}

const limitSettings: Limits[] = [
  { label: "qps 20 / burst 30 (default)", args: [] },
  { label: "qps 500 / burst 1000", args: ["--kube-api-qps=500", "--kube-api-burst=1000"] },
];

const [controlPlane, binaries, kubeLoomBinary] = await Promise.all([
  ControlPlane.start(),
  ensureBinaries({ withControllerManager: true }),
  buildKubeLoom(),
]);

const peers: Peer[] = [
  {
    name: "kube-controller-manager",
    command: (kubeconfig, limits) => [
      binaries.kubeControllerManager,
      `--kubeconfig=${kubeconfig}`,
      "--controllers=replicaset-controller",
      "--leader-elect=false",
      "--secure-port=0",
      ...limits,
    ],
  },
  {
    name: "kube-loom",
    command: (kubeconfig, limits) => [kubeLoomBinary, `--kubeconfig=${kubeconfig}`, "--controllers=replicaset", "--leader-elect=false", "--secure-port=0", ...limits],
  },
];

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  const results: Measurement[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const limits of limitSettings) {
      for (const peer of peers) results.push(await measure(client, peer, limits, round));
    }
  }
  printResults(results);
} finally {
  await controlPlane.stop();
}

async function measure(client: KubeClient, peer: Peer, limits: Limits, round: number): Promise<Measurement> {
  const run = `${peer.name}-${limitSettings.indexOf(limits)}-${round}`;
  const controller = spawnDaemon(peer.command(controlPlane.kubeconfigPath, limits.args), join(controlPlane.dir, `${run}.log`));
  try {
    const namespace = await createNamespace(client, `bench-${run}`);
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 0 })]);
    // The controller has synced its caches once it has written the status of the new ReplicaSet.
    const idle = await waitForStatus(client, namespace, "web", { replicas: 0 }, 120_000);
    const census = await PodCensus.start(client, idle);
    try {
      const upStarted = performance.now();
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, `--replicas=${replicas}`]);
      await waitForStatus(client, namespace, "web", { replicas }, 1_200_000);
      const upSeconds = (performance.now() - upStarted) / 1000;
      const downStarted = performance.now();
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=0"]);
      await waitForStatus(client, namespace, "web", { replicas: 0 }, 1_200_000);
      const downSeconds = (performance.now() - downStarted) / 1000;
      console.error(`${peer.name}, ${limits.label}, round ${round}: up ${upSeconds.toFixed(1)} s, down ${downSeconds.toFixed(1)} s, max live ${census.maxLiveCount}`);
      return { peer: peer.name, limits: limits.label, upSeconds, downSeconds, maxLive: census.maxLiveCount };
    } finally {
      await census.close();
    }
  } finally {
    await stopDaemon(controller, "SIGTERM", 30_000);
  }
}

function printResults(results: Measurement[]): void {
  const mean = (peer: string, limits: string, pick: (m: Measurement) => number) => {
    const values = results.filter((m) => m.peer === peer && m.limits === limits).map(pick);
    return values.reduce((a, b) => a + b, 0) / values.length;
  };
  const upstream = peers[0]?.name ?? "";
  const header = ["controller", "client limits", `0 → ${replicas} s`, "pods/s", `${replicas} → 0 s`, "max live pods", "up vs KCM", "down vs KCM"];
  const lines = [header];
  for (const { label } of limitSettings) {
    for (const { name } of peers) {
      const up = mean(name, label, (m) => m.upSeconds);
      const down = mean(name, label, (m) => m.downSeconds);
      lines.push([
        name,
        label,
        up.toFixed(1),
        (replicas / up).toFixed(0),
        down.toFixed(1),
        String(Math.max(...results.filter((m) => m.peer === name && m.limits === label).map((m) => m.maxLive))),
        `${(up / mean(upstream, label, (m) => m.upSeconds)).toFixed(2)}×`,
        `${(down / mean(upstream, label, (m) => m.downSeconds)).toFixed(2)}×`,
      ]);
    }
  }
  console.log(`means over ${rounds} round(s); time from kubectl scale until status.replicas matches (lower is better)`);
  printTable(lines);
}
