// ReplicaSet scaling against upstream: kube-loom's replicaset controller and kube-controller-manager
// v1.37's replicaset-controller, one after the other on the same real API server, at the default
// client limits (--kube-api-qps 20, --kube-api-burst 30) and at 500/1000. Per run: a ReplicaSet at
// 0 replicas is scaled to N with kubectl; measured is the time until a watch on the ReplicaSet shows
// status.replicas at N (all Pods created and seen), the most live Pods at any moment (must not
// exceed N), and the scale back to 0.
// The limit, per round and setting: a plain client (client-go, same limits) creating N Pods from the
// same template, then deleting them.
// With --slow-creates <fraction>:<delay> (e.g. 0.1:5s), the API server answers that fraction of Pod
// creates late (bench/slow-create-webhook.ts), and every run is made twice, with and without delays.
//   bun bench/replicaset-scale.ts [replicas, default 1000] [rounds, default 3] [settings, default "20,500"] [--slow-creates 0.1:5s]
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { KubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { fastClient } from "../test/integration/informer-fixtures.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { apply, createNamespace, type Pod, kubectl, PodCensus, replicaSetManifest, replicaSetVersionsUntil, statusMatches, waitForStatus } from "../test/replicaset/replicaset-fixture.ts";
import { podFromTemplate } from "../controllers/replicaset/pod-control.ts";
import { clientGoPeer, runClientGoPeer } from "./client-go-peer.ts";
import { type Comparison, printComparison } from "./comparison.ts";
import { buildPeerProcesses, comparisonOf, type PeerProcess, type System } from "./peer-processes.ts";
import { cpuSeconds, waitForQuiet } from "./process-usage.ts";
import { describeSlowCreates, parseSlowCreates, type SlowCreates, SlowCreateWebhook, slowCreatesLabel } from "./slow-create-webhook.ts";
import { Samples } from "./statistics.ts";

const { values: options, positionals } = parseArgs({ options: { "slow-creates": { type: "string" } }, allowPositionals: true });
const replicas = Number(positionals[0] ?? 1000);
const rounds = Number(positionals[1] ?? 3);
const qpsSettings = (positionals[2] ?? "20,500").split(",").map(Number);
const slowCreates = options["slow-creates"] === undefined ? undefined : parseSlowCreates(options["slow-creates"]);
/** Each run is made under each of these: without delays, then with them if asked for. */
const conditions: (SlowCreates | undefined)[] = slowCreates ? [undefined, slowCreates] : [undefined];

/** A client limit: kube-controller-manager's default burst for qps 20, twice the qps above. */
interface Limits {
  qps: number;
  burst: number;
}

const settings: Limits[] = qpsSettings.map((qps) => ({ qps, burst: qps === 20 ? 30 : 2 * qps }));
const label = ({ qps, burst }: Limits, slow?: SlowCreates) => `qps ${qps} / burst ${burst}${slow ? ", slow" : ""}`;

const [controlPlane, controllers] = await Promise.all([
  ControlPlane.start(),
  buildPeerProcesses({ "kube-controller-manager": "replicaset-controller", "kube-loom": "replicaset" }),
  clientGoPeer(),
]);
const webhook = slowCreates && new SlowCreateWebhook(slowCreates);
/** Figures are "<up|down> <qps>[ slow]". */
const samples = new Samples<System | "limit">();
let maxLive = 0;

try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  if (webhook) await registerWebhook(client, webhook);
  for (let round = 1; round <= rounds; round++) {
    for (const limits of settings) {
      for (const slow of conditions) {
        for (const controller of controllers) await measure(client, controller, limits, slow, round);
        await measureLimit(client, limits, slow, round);
      }
    }
  }
  printResults();
} finally {
  webhook?.stop();
  await controlPlane.stop();
}

/** A figure's name: direction, client QPS, and whether creates were slowed. */
function figure(direction: "up" | "down", limits: Limits, slow: SlowCreates | undefined): string {
  return `${direction} ${limits.qps}${slow ? " slow" : ""}`;
}

/** A fresh namespace for one run; under slow creates, one the webhook delays Pod creates in. */
async function runNamespace(client: KubeClient, name: string, slow: SlowCreates | undefined): Promise<string> {
  if (!slow) return createNamespace(client, name);
  await apply(controlPlane, [{ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: slowCreatesLabel } }]);
  return name;
}

/** Registers the webhook and waits until the API server calls it (it loads webhook configurations asynchronously). */
async function registerWebhook(client: KubeClient, slowWebhook: SlowCreateWebhook): Promise<void> {
  await apply(controlPlane, [slowWebhook.configuration()]);
  const namespace = await runNamespace(client, "bench-webhook-probe", slowCreates);
  const pods = client.dynamic.resource(resources.pods, namespace);
  await waitUntil(async () => {
    await pods.create(ownerlessPod(namespace), { dryRun: true });
    return slowWebhook.createsSeen(namespace) > 0;
  }, "the API server to call the slow-create webhook");
}

async function measure(client: KubeClient, controller: PeerProcess, limits: Limits, slow: SlowCreates | undefined, round: number): Promise<void> {
  const run = `${controller.system}-${limits.qps}${slow ? "-slow" : ""}-${round}`;
  const flags = [`--kube-api-qps=${limits.qps}`, `--kube-api-burst=${limits.burst}`];
  const process = spawnDaemon(controller.command(controlPlane.kubeconfigPath, flags), join(controlPlane.dir, `${run}.log`));
  try {
    const namespace = await runNamespace(client, `bench-${run}`, slow);
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
      const phases = `first Pod seen ${seen(0)} s, Pod ${replicas / 2} ${seen(replicas / 2 - 1)} s, last ${seen(replicas - 1)} s${delays(namespace)}`;
      const downStarted = performance.now();
      const scaledDown = replicaSetVersionsUntil(client, namespace, "web", (rs) => statusMatches(rs, { replicas: 0 }), 1_200_000);
      await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=0"]);
      await scaledDown;
      const downSeconds = (performance.now() - downStarted) / 1000;
      console.error(`${controller.system}, ${label(limits, slow)}, round ${round}: up ${upSeconds.toFixed(2)} s (${phases}; controller CPU ${upCpu.toFixed(2)} s), down ${downSeconds.toFixed(2)} s, max live ${census.maxLiveCount}`);
      samples.record(figure("up", limits, slow), controller.system, upSeconds);
      samples.record(figure("down", limits, slow), controller.system, downSeconds);
      maxLive = Math.max(maxLive, census.maxLiveCount);
    } finally {
      await census.close();
    }
  } finally {
    await stopDaemon(process, "SIGTERM", 30_000);
  }
}

/** The same creates and deletes by a plain client at the same limits, Pods built from the same template. */
async function measureLimit(client: KubeClient, limits: Limits, slow: SlowCreates | undefined, round: number): Promise<void> {
  const namespace = await runNamespace(client, `bench-limit-${limits.qps}${slow ? "-slow" : ""}-${round}`, slow);
  const path = `/api/v1/namespaces/${namespace}/pods`;
  const qps = String(limits.qps);
  await waitForQuiet(controlPlane.pids);
  const burst = String(limits.burst);
  const created = await runClientGoPeer<{ seconds: number }>(["create", controlPlane.kubeconfigPath, path, String(replicas), qps, burst], JSON.stringify(ownerlessPod(namespace)));
  const deleted = await runClientGoPeer<{ seconds: number }>(["delete", controlPlane.kubeconfigPath, path, qps, burst]);
  console.error(`limit, ${label(limits, slow)}, round ${round}: ${replicas} creates ${created.seconds.toFixed(2)} s${delays(namespace)}, deletes ${deleted.seconds.toFixed(2)} s`);
  samples.record(figure("up", limits, slow), "limit", created.seconds);
  samples.record(figure("down", limits, slow), "limit", deleted.seconds);
}

/** A Pod from the benchmark's template, without an owner: nothing it is used for is a ReplicaSet's. */
function ownerlessPod(namespace: string): Pod {
  const pod = podFromTemplate(replicaSetManifest({ name: "web", namespace, replicas }));
  const { ownerReferences: _owner, ...metadata } = pod.metadata ?? {};
  return { ...pod, metadata };
}

/** How many of the namespace's Pod creates the webhook held back, when there is one. */
function delays(namespace: string): string {
  return webhook ? `, ${webhook.createsDelayed(namespace)} of ${webhook.createsSeen(namespace)} creates delayed` : "";
}

function printResults(): void {
  const rows: Comparison[] = settings.flatMap((limits) =>
    conditions.flatMap((slow) =>
      (["up", "down"] as const).map((direction) =>
        comparisonOf(samples, `${direction === "up" ? `0 → ${replicas}` : `${replicas} → 0`}, ${label(limits, slow)}`, figure(direction, limits, slow)),
      ),
    ),
  );
  const delayNote = slowCreates ? `; "slow": ${describeSlowCreates(slowCreates)} by the API server (an admission webhook)` : "";
  printComparison(
    rows,
    `medians of ${rounds} interleaved rounds; time from kubectl scale until status.replicas matches; limit: a plain client's ${replicas} creates, then deletes${delayNote}; most live Pods at any moment: ${maxLive}`,
  );
}
