// Pod writes whose answer is lost, kube-loom beside kube-controller-manager v1.37: each runs alone
// against its own control plane, through a RequestFaultProxy that carries out one Pod create (a
// new ReplicaSet of 3) and one Pod delete (3 scaled to 2), cuts each answer, and holds the Pod
// watch back 3 s (test/replicaset/lost-answers.ts). Prints what each did: Pods created and
// deleted, the most alive at once, the writes of that kind it sent, and the time to converge.
//   bun bench/ambiguous-writes.ts [tries, default 1]
import { join } from "node:path";
import { ensureBinaries } from "../test/controlplane/binaries.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { fastClient } from "../test/integration/informer-fixtures.ts";
import { type LostAnswerOutcome, lostCreate, lostDelete } from "../test/replicaset/lost-answers.ts";
import { createNamespace } from "../test/replicaset/replicaset-fixture.ts";
import { RequestFaultProxy } from "../test/support/request-fault-proxy.ts";
import { buildPeerProcesses, type PeerProcess } from "./peer-processes.ts";
import { printTable } from "./print-table.ts";

const tries = Number(process.argv[2] ?? 1);
const binaries = await ensureBinaries({ withControllerManager: true });
const peers = await buildPeerProcesses({ "kube-controller-manager": "replicaset", "kube-loom": "replicaset" });

async function measure(peer: PeerProcess, attempt: number): Promise<{ create: LostAnswerOutcome; delete: LostAnswerOutcome }> {
  const controlPlane = await ControlPlane.start({ binaries });
  const proxy = await RequestFaultProxy.inFrontOf(controlPlane);
  const daemon = spawnDaemon(peer.command(controlPlane.writeKubeconfig({ server: proxy.url })), join(controlPlane.dir, `${peer.system}.log`));
  try {
    const client = await fastClient(controlPlane.kubeconfigPath);
    const namespace = await createNamespace(client, `lost-answers-${attempt}`);
    const setup = { controlPlane, client, proxy, namespace };
    return { create: await lostCreate(setup, "lost-create"), delete: await lostDelete(setup, "lost-delete") };
  } finally {
    await stopDaemon(daemon, "SIGTERM", 30_000);
    await proxy.stop();
    await controlPlane.stop();
  }
}

const rows: string[][] = [["system", "lost answer", "Pods created", "most alive", "Pods deleted", "writes sent", "converged after the cut"]];
for (let attempt = 1; attempt <= tries; attempt++) {
  for (const peer of peers) {
    const outcome = await measure(peer, attempt);
    for (const [kind, figures] of [["create (3 wanted)", outcome.create], ["delete (3 → 2)", outcome.delete]] as const) {
      const { created, mostAtOnce, deleted, writesSent, convergedMs } = figures;
      rows.push([peer.system, kind, String(created), String(mostAtOnce), String(deleted), String(writesSent), `${(convergedMs / 1000).toFixed(2)} s`]);
    }
  }
}
printTable(rows);
