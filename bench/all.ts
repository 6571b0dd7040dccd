// Runs every benchmark, one after the other (they would only disturb each other on 2 cores), and
// prints their tables; each script's progress goes to a log file. About 2 hours on the project's
// 2-core machine; --only picks some, by script name.
//   bun bench/all.ts [--only informer-sync,gc-cascade,...] [--log-dir DIR]
// Not here: bench/differential.ts and bench/soak.ts, which check behaviour rather than measure it.
import { mkdirSync, openSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { describeMachine } from "./machine.ts";

interface Benchmark {
  script: string;
  args: string[];
  /** What the table shows, printed above it. */
  title: string;
}

const benchmarks: Benchmark[] = [
  { script: "informer-sync", args: [], title: "Informer sync: kube-loom, client-go, client-node and the raw LIST" },
  { script: "gc-cascade", args: [], title: "Garbage collector: monitor sync, cascades, against kube-controller-manager and the limit" },
  { script: "replicaset-scale", args: [], title: "ReplicaSet 0 → 1000 → 0, against kube-controller-manager and the limit" },
  { script: "controller-cost", args: [], title: "Idle and loaded cost: RSS and CPU of kube-loom and kube-controller-manager" },
  { script: "gc-graph-memory", args: [], title: "Garbage collector graph memory" },
  { script: "relist-timer-delay", args: [], title: "Timer delay while an informer lists and relists 100,000 ConfigMaps" },
  { script: "informer-relist", args: [], title: "Relist peak RSS against the steady RSS, 50,000 ConfigMaps" },
  { script: "leader-failover", args: [], title: "Leader failover" },
  { script: "ambiguous-writes", args: ["3"], title: "Pod writes whose answer is lost" },
  { script: "network-ready-latency", args: ["--provider=neutron"], title: "Network time to Ready, Neutron" },
  { script: "network-ready-latency", args: ["--provider=memory"], title: "Network time to Ready, memory provider" },
];

const { values } = parseArgs({ options: { only: { type: "string" }, "log-dir": { type: "string" } } });
const only = values.only?.split(",");
const unknown = only?.filter((name) => !benchmarks.some((b) => b.script === name)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: no benchmark named ${unknown.join(", ")} (known: ${[...new Set(benchmarks.map((b) => b.script))].join(", ")})`);
  process.exit(2);
}
const logDir = values["log-dir"] ?? join(tmpdir(), `kube-loom-bench-${new Date().toISOString().replace(/[:.]/g, "-")}`);
mkdirSync(logDir, { recursive: true });

console.log(`${describeMachine()}; logs in ${logDir}`);
const started = performance.now();
const failed: string[] = [];
for (const [i, benchmark] of benchmarks.entries()) {
  if (only && !only.includes(benchmark.script)) continue;
  const command = ["./node_modules/.bin/bun", `bench/${benchmark.script}.ts`, ...benchmark.args];
  const logPath = join(logDir, `${i + 1}-${benchmark.script}.log`);
  console.log(`\n## ${benchmark.title}\n$ ${command.slice(1).join(" ")}`);
  const benchStarted = performance.now();
  const log = openSync(logPath, "a");
  try {
    const child = Bun.spawn(command, { cwd: import.meta.dir + "/..", stdout: "pipe", stderr: log });
    for await (const chunk of child.stdout) process.stdout.write(chunk);
    const code = await child.exited;
    if (code !== 0) {
      failed.push(benchmark.script);
      console.log(`failed with exit code ${code}; see ${logPath}`);
    }
  } finally {
    closeSync(log);
  }
  console.log(`(${((performance.now() - benchStarted) / 60_000).toFixed(1)} min)`);
}
console.log(`\nall benchmarks: ${((performance.now() - started) / 60_000).toFixed(0)} min${failed.length > 0 ? `; failed: ${failed.join(", ")}` : ""}`);
process.exit(failed.length > 0 ? 1 : 0);
