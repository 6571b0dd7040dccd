// Figures 2 (idle RSS) and 3 (idle CPU), and what each process has received so far: every process
// given settles first, then all are sampled over the same window. A ring's replicas give one
// sample each.
import { cpuSeconds } from "../process-usage.ts";
import { type BenchContext, type Measured, settleMaxMs, settleMinMs } from "./context.ts";
import { type ManagerProcess, peakRssWhile } from "./manager-process.ts";

export async function measureIdle(ctx: BenchContext, who: Measured, managers: readonly ManagerProcess[]): Promise<void> {
  await Promise.all(managers.map((manager) => manager.settle(settleMinMs, settleMaxMs)));
  const window = Bun.sleep(ctx.idleSeconds * 1000);
  await Promise.all(
    managers.map(async (manager) => {
      const cpuBefore = cpuSeconds(manager.pid);
      const { peakMiB } = await peakRssWhile(manager.pid, 1000, window);
      const cpuPerMinute = ((cpuSeconds(manager.pid) - cpuBefore) / ctx.idleSeconds) * 60;
      const received = manager.bytesReceived / 2 ** 20;
      ctx.samples.record("idle rss", who, peakMiB);
      ctx.samples.record("idle cpu", who, cpuPerMinute);
      ctx.samples.record("received to idle", who, received);
      ctx.progress(`${who} (pid ${manager.pid}): idle ${cpuPerMinute.toFixed(2)} CPU s/min, RSS ≤ ${peakMiB.toFixed(0)} MiB over ${ctx.idleSeconds} s; received ${received.toFixed(1)} MiB since exec`);
    }),
  );
}
