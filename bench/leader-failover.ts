// Leader failover: how long a standby takes to lead after the leader is killed (kill -9) or
// shut down (SIGTERM), for kube-loom and for upstream kube-controller-manager v1.37 (the peer),
// both with the default 15s / 10s / 2s lease timings, on the same API server.
//   bun bench/leader-failover.ts [tries, default 10]
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ensureBinaries } from "../test/controlplane/binaries.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { resources } from "../pkg/kube/gvr.ts";
import type { KubeObject } from "../pkg/kube/objects.ts";
import { fastClient } from "../test/integration/informer-fixtures.ts";
import { buildKubeLoom } from "../test/support/kube-loom-binary.ts";
import { freeLoopbackPorts } from "../test/controlplane/free-ports.ts";
import { waitUntil } from "../test/support/eventually.ts";
import { printTable } from "./print-table.ts";

const tries = Number(process.argv[2] ?? 10);
const binaries = await ensureBinaries({ withControllerManager: true });
const [controlPlane, kubeLoomBinary] = await Promise.all([ControlPlane.start({ binaries }), buildKubeLoom()]);
const admin = await fastClient(controlPlane.kubeconfigPath);
const leases = admin.dynamic.resource<KubeObject & { spec?: { holderIdentity?: string } }>(resources.leases, "kube-system");

type System = "kube-loom" | "kube-controller-manager";
type Stop = "SIGKILL" | "SIGTERM";

async function startInstance(system: System, lease: string): Promise<Subprocess> {
  const { port } = await freeLoopbackPorts(["port"] as const);
  const common = [`--kubeconfig=${controlPlane.kubeconfigPath}`, "--leader-elect=true", `--leader-elect-resource-name=${lease}`];
  const command =
    system === "kube-loom"
      ? [kubeLoomBinary, ...common, "--controllers=replicaset", `--port=${port}`, "--secure-port=0"]
      : [binaries.kubeControllerManager, ...common, "--controllers=ttl-controller", "--secure-port=0"];
  return Bun.spawn(command, { stdout: "ignore", stderr: "ignore" });
}

async function holder(lease: string): Promise<string> {
  return leases.get(lease).then((l) => l.spec?.holderIdentity ?? "", () => "");
}

async function failover(system: System, stop: Stop, attempt: number): Promise<number> {
  const lease = `bench-${system === "kube-loom" ? "loom" : "kcm"}-${stop.toLowerCase()}-${attempt}`;
  const leader = await startInstance(system, lease);
  await waitUntil(async () => (await holder(lease)) !== "", `a holder of ${lease}`, 90_000, 25);
  const first = await holder(lease);
  const standby = await startInstance(system, lease);
  // Let the standby start, sync and observe the lease a few times.
  await Bun.sleep(5_000);
  const stoppedAt = Date.now();
  leader.kill(stop);
  await waitUntil(
    async () => {
      const current = await holder(lease);
      return current !== "" && current !== first;
    },
    `a new holder of ${lease}`,
    90_000,
    25,
  );
  const takeover = Date.now() - stoppedAt;
  standby.kill("SIGKILL");
  await Promise.all([leader.exited, standby.exited]);
  return takeover;
}

const systems: System[] = ["kube-loom", "kube-controller-manager"];
const stops: Stop[] = ["SIGKILL", "SIGTERM"];
const results = new Map<string, number[]>();
try {
  for (const stop of stops) {
    for (const system of systems) {
      const times: number[] = [];
      for (let attempt = 0; attempt < tries; attempt++) times.push(await failover(system, stop, attempt));
      results.set(`${system} ${stop}`, times);
      console.error(`${system} ${stop}: ${times.map((t) => (t / 1000).toFixed(2)).join(" ")} s`);
    }
  }
} finally {
  await controlPlane.stop();
}

const stat = (times: number[], q: number) => [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
const mean = (times: number[]) => times.reduce((a, b) => a + b, 0) / times.length;
const rows = [["stop", "system", "tries", "mean s", "min s", "max s", "mean vs kube-controller-manager"]];
for (const stop of stops) {
  const peer = mean(results.get(`kube-controller-manager ${stop}`) ?? []);
  for (const system of systems) {
    const times = results.get(`${system} ${stop}`) ?? [];
    rows.push([
      stop === "SIGKILL" ? "kill -9" : "SIGTERM",
      system,
      String(times.length),
      (mean(times) / 1000).toFixed(2),
      (stat(times, 0) / 1000).toFixed(2),
      (stat(times, 1) / 1000).toFixed(2),
      `${(mean(times) / peer).toFixed(3)}×`,
    ]);
  }
}
printTable(rows);
console.log(`lease duration 15s, renew deadline 10s, retry period 2s; log folder ${join(controlPlane.dir)}`);
