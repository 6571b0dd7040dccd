// One line naming what a benchmark ran on, printed above its table: figures from a 2-core
// machine shared with other work mean little without it.
import { cpus, loadavg, totalmem } from "node:os";

export function describeMachine(): string {
  const cores = cpus();
  const model = (cores[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim();
  const memoryGiB = Math.round(totalmem() / 2 ** 30);
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  return `${cores.length} × ${model}, ${memoryGiB} GiB, ${process.platform} ${process.arch}, Bun ${Bun.version}; load average ${load}; ${new Date().toISOString().slice(0, 10)}`;
}
