// Relist memory benchmark: the peak RSS of one informer over N ConfigMaps (~1 KiB each) while it
// relists, against its own steady RSS. The relist is forced as bench/cluster-scale.ts forces it:
// kube-apiserver restarted with every older resourceVersion expired, so the watch gets 410 Gone
// and the informer lists everything again while its cache still holds the old list. Each
// measurement runs in a fresh process (bench/informer-relist-worker.ts); rounds are interleaved.
//   bun bench/informer-relist.ts [objects, default 50000] [rounds, default 3] [--variants full,metadata] [--baseline DIR]
// --baseline DIR: also measure another kube-loom source tree (e.g. `git archive main | tar -x -C DIR`,
// with node_modules linked), round by round with this one: the same relist before and after a change.
import { copyFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { createConfigMaps, ensureNamespace, fastClient } from "../test/integration/informer-fixtures.ts";
import { restartApiserverExpiringWatches } from "./cluster-scale/forced-relist.ts";
import { describeMachine } from "./machine.ts";
import { printTable } from "./print-table.ts";
import { median, ratio } from "./statistics.ts";

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { variants: { type: "string", default: "full,metadata" }, baseline: { type: "string" } },
});
const objects = Number(positionals[0] ?? 50_000);
const rounds = Number(positionals[1] ?? 3);
const variants = values.variants.split(",");
if (!Number.isInteger(objects) || objects < 1 || !Number.isInteger(rounds) || rounds < 1) usage(`objects and rounds must be positive integers, got ${positionals.join(" ")}`);
if (variants.some((v) => v !== "full" && v !== "metadata")) usage(`--variants ${values.variants}: expected full, metadata or both`);

const here = resolve(import.meta.dir, "..");
const trees = [{ label: "this tree", root: here }];
if (values.baseline) {
  const root = resolve(values.baseline);
  if (!existsSync(join(root, "pkg/informer/factory.ts"))) usage(`--baseline ${values.baseline}: not a kube-loom source tree`);
  // The baseline is measured by this same worker, run against its sources.
  copyFileSync(join(here, "bench/informer-relist-worker.ts"), join(root, "bench/informer-relist-worker.ts"));
  trees.push({ label: `baseline ${values.baseline}`, root });
}

interface Measurement {
  steadyRssMiB: number;
  peakRssMiB: number;
  afterRssMiB: number;
  relistMs: number;
  maxTimerDelayMs: number;
}

const controlPlane = await ControlPlane.start();
const results = new Map<string, Measurement[]>();
const loads: string[] = [];
try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  const namespace = `relist-${objects}`;
  await ensureNamespace(client, namespace);
  const created = performance.now();
  await createConfigMaps(client, namespace, Array.from({ length: objects }, (_, i) => `cm-${i}`), 1024);
  console.error(`created ${objects} ConfigMaps of 1 KiB in ${((performance.now() - created) / 1000).toFixed(1)} s`);
  for (let round = 1; round <= rounds; round++) {
    for (const variant of variants) {
      // Who goes first alternates: each measurement follows a kube-apiserver restart, the first one closest to it.
      for (const tree of round % 2 === 1 ? trees : [...trees].reverse()) {
        const measurement = await measure(tree.root, variant, namespace, () => restartApiserverExpiringWatches(controlPlane, client));
        console.error(`${tree.label} ${variant} round ${round}: ${JSON.stringify(measurement)}`);
        const key = `${tree.label} ${variant}`;
        results.set(key, [...(results.get(key) ?? []), measurement]);
      }
    }
    loads.push(describeMachine().replace(/.*load average ([\d. ]+);.*/, "$1"));
  }
  printResults();
} finally {
  await controlPlane.stop();
}

async function measure(root: string, variant: string, namespace: string, relist: () => Promise<void>): Promise<Measurement> {
  const worker = Bun.spawn([join(here, "node_modules/.bin/bun"), join(root, "bench/informer-relist-worker.ts"), variant, controlPlane.kubeconfigPath, namespace, String(objects)], {
    cwd: root,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(worker.stderr).text();
  const lines = linesOf(worker.stdout);
  try {
    const steady = JSON.parse(await nextLine(lines)) as Pick<Measurement, "steadyRssMiB">;
    worker.stdin.write("relist\n");
    await worker.stdin.flush();
    if ((await nextLine(lines)) !== "ready") throw new Error("worker did not get ready for the relist");
    await relist();
    const during = JSON.parse(await nextLine(lines)) as Omit<Measurement, "steadyRssMiB">;
    return { ...steady, ...during };
  } catch (err) {
    worker.kill();
    throw new Error(`${variant} worker in ${root} failed: ${(await stderr).trim().split("\n").slice(-5).join("\n")}`, { cause: err });
  } finally {
    await worker.exited;
  }
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
    }
  }
}

async function nextLine(lines: AsyncGenerator<string>): Promise<string> {
  const next = await lines.next();
  if (next.done) throw new Error("worker ended early");
  return next.value;
}

function printResults(): void {
  const lines = [["informer", "tree", "steady RSS MiB", "relist peak MiB", "peak − steady MiB", "RSS after MiB", "relist s", "max timer delay ms", "peak / steady", "rounds peak / steady"]];
  for (const variant of variants) {
    for (const tree of trees) {
      const samples = results.get(`${tree.label} ${variant}`) ?? [];
      const pick = (field: keyof Measurement) => median(samples.map((m) => m[field]));
      lines.push([
        variant === "full" ? "ConfigMaps, full" : "ConfigMaps, metadata-only",
        tree.label,
        pick("steadyRssMiB").toFixed(0),
        pick("peakRssMiB").toFixed(0),
        median(samples.map((m) => m.peakRssMiB - m.steadyRssMiB)).toFixed(0),
        pick("afterRssMiB").toFixed(0),
        (pick("relistMs") / 1000).toFixed(2),
        pick("maxTimerDelayMs").toFixed(0),
        ratio(median(samples.map((m) => m.peakRssMiB / m.steadyRssMiB)), 1),
        samples.map((m) => ratio(m.peakRssMiB, m.steadyRssMiB)).join(" "),
      ]);
    }
  }
  console.log(`${objects.toLocaleString("en-US")} ConfigMaps; medians of ${rounds} interleaved rounds, each a fresh process; load average after each round: ${loads.join(" | ")}`);
  console.log(describeMachine());
  printTable(lines);
}

function usage(message: string): never {
  console.error(`${message}\nusage: bun bench/informer-relist.ts [objects] [rounds] [--variants full,metadata] [--baseline DIR]`);
  process.exit(2);
}
