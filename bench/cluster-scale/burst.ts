// Figure 4: every ReplicaSet +10 %, then back, each timed from the first write until every
// ReplicaSet's status shows the new size. The writes go out together through the benchmark's
// own client; the Pods created and deleted are counted, and must be exactly the difference. The
// controller CPU is that of every process given (a ring's replicas together); the bytes received
// are per process.
import { resources } from "../../pkg/kube/gvr.ts";
import { inParallel } from "../../test/integration/informer-fixtures.ts";
import type { ReplicaSet } from "../../test/replicaset/replicaset-fixture.ts";
import { cpuSeconds, waitForQuiet } from "../process-usage.ts";
import { type BenchContext, type Measured, syncTimeoutMs } from "./context.ts";
import type { ManagerProcess } from "./manager-process.ts";
import { ReplicaSetConvergence } from "./replicaset-convergence.ts";
import { ChangeCounter } from "./resource-events.ts";
import { namespaceNames, podsPerReplicaSet, replicaSetAt } from "./shape.ts";

export async function measureBurst(ctx: BenchContext, who: Measured, managers: readonly ManagerProcess[]): Promise<void> {
  const seeded = new Set(namespaceNames(ctx.shape));
  const tracker = await ReplicaSetConvergence.start(ctx.client, (rs) => seeded.has(rs.metadata?.namespace ?? ""));
  const base = podsPerReplicaSet(ctx.shape);
  const pids = managers.map((manager) => manager.pid);
  const totalCpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  try {
    for (const [direction, size] of [["up", base + Math.round(base / 10)], ["down", base]] as const) {
      const pods = await ChangeCounter.start(ctx.client, resources.pods, (pod) => seeded.has(pod.metadata?.namespace ?? ""));
      await waitForQuiet([...ctx.controlPlane.pids, ...pids]);
      const cpuBefore = totalCpu();
      const bytesBefore = managers.map((manager) => manager.bytesReceived);
      const converged = tracker.convergedOn(() => size, syncTimeoutMs);
      const started = performance.now();
      await scaleAll(ctx, size);
      const writesSeconds = (performance.now() - started) / 1000;
      const seconds = ((await converged) - started) / 1000;
      const cpu = totalCpu() - cpuBefore;
      const changes = await pods.close();
      const received = managers.map((manager, i) => (manager.bytesReceived - (bytesBefore[i] as number)) / 2 ** 20);
      ctx.samples.record(`burst ${direction}`, who, seconds);
      ctx.samples.record(`burst ${direction} cpu`, who, cpu);
      ctx.samples.record(`burst ${direction} writes`, who, writesSeconds);
      ctx.samples.record(`burst ${direction} pods`, who, changes.created + changes.deleted);
      for (const mib of received) ctx.samples.record(`burst ${direction} received`, who, mib);
      ctx.progress(
        `${who}: burst ${direction} to ${size} per ReplicaSet in ${seconds.toFixed(2)} s (writes ${writesSeconds.toFixed(2)} s, controller CPU ${cpu.toFixed(2)} s); ` +
          `Pods created ${changes.created}, deleted ${changes.deleted}; received ${received.map((mib) => mib.toFixed(1)).join(" / ")} MiB`,
      );
    }
  } finally {
    await tracker.close();
  }
}

export async function scaleAll(ctx: BenchContext, replicas: number): Promise<void> {
  const indices = Array.from({ length: ctx.shape.replicaSets }, (_, i) => i);
  await inParallel(indices, 100, async (i) => {
    const { namespace, name } = replicaSetAt(ctx.shape, i);
    await ctx.client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).patch(name, { spec: { replicas } }, "merge");
  });
}
