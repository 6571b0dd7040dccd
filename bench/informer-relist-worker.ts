// One informer of bench/informer-relist.ts, in its own process so that its RSS is its own:
//   bun bench/informer-relist-worker.ts <full|metadata> <kubeconfig> <namespace> <expected-count>
// Syncs, collects its garbage, idles, and prints {steadyRssMiB}; then, once told "relist" on
// stdin, resets the kernel's peak-RSS mark, says "ready", waits until the informer has relisted
// (the bench restarts kube-apiserver with every resourceVersion expired) and its cache holds the
// new list, and prints {peakRssMiB, relistMs, maxTimerDelayMs, ...}: the highest RSS since the
// reset, and the most a 10 ms timer fired late meanwhile.
import { readFileSync, writeFileSync } from "node:fs";
import { SharedInformerFactory } from "../pkg/informer/factory.ts";
import { loadClientConfig } from "../pkg/kube/client-config.ts";
import { createKubeClient } from "../pkg/kube/client.ts";
import { resources } from "../pkg/kube/gvr.ts";

const [variant, kubeconfig, namespace, expectedText] = process.argv.slice(2);
if ((variant !== "full" && variant !== "metadata") || !kubeconfig || !namespace || !expectedText) {
  console.error("usage: informer-relist-worker.ts <full|metadata> <kubeconfig> <namespace> <expected-count>");
  process.exit(2);
}
const expected = Number(expectedText);
/** How long the process idles after its sync, and after the relist, before RSS is read. */
const settleMs = 3000;

const client = await createKubeClient(loadClientConfig({ kubeconfig }), { qps: 20, burst: 30, timeoutMs: 120_000 });
const factory = new SharedInformerFactory({ listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope), defaultResyncMs: 0 });
const { informer } = variant === "metadata" ? factory.forMetadata(resources.configMaps, { namespace }) : factory.forResource(resources.configMaps, { namespace });
factory.start(new AbortController().signal);
const cache = informer.getIndexer();
while (!informer.hasSynced() || cache.size < expected) await Bun.sleep(10);
// Steady: the sync's garbage collected, as a process idle for a while has it.
Bun.gc(true);
await Bun.sleep(settleMs);
console.log(JSON.stringify({ steadyRssMiB: residentMiB("VmRSS"), cached: cache.size }));

await nextLine();
const versionBefore = cache.lastStoreSyncResourceVersion();
const listsBefore = informer.counters.lists;
// The kernel keeps the highest RSS of the process (VmHWM); writing 5 to clear_refs resets it to
// the current RSS, so it then holds the relist's peak, however short, without sampling.
writeFileSync("/proc/self/clear_refs", "5");
let sampledPeak = 0;
const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss())), 5);
// How late a 10 ms timer fires meanwhile: what a pause of the event loop (a collection waited for, a long slice) costs the rest of the process.
let timerDelayMs = 0;
let lastTick = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  timerDelayMs = Math.max(timerDelayMs, now - lastTick - 10);
  lastTick = now;
}, 10);
console.log("ready");
const started = performance.now();
while (!relisted()) await Bun.sleep(10);
const relistMs = performance.now() - started;
await Bun.sleep(settleMs);
clearInterval(sampler);
clearInterval(ticker);
console.log(
  JSON.stringify({
    peakRssMiB: Math.max(residentMiB("VmHWM"), sampledPeak / 2 ** 20),
    afterRssMiB: residentMiB("VmRSS"),
    relistMs: Math.round(relistMs),
    maxTimerDelayMs: Math.round(timerDelayMs),
    relists: informer.counters.relists,
    cached: cache.size,
  }),
);
process.exit(0);

/** A new list is in the cache: the reflector listed again and the cache reached the version it listed at. */
function relisted(): boolean {
  const version = cache.lastStoreSyncResourceVersion();
  return informer.counters.lists > listsBefore && version !== versionBefore && version === informer.lastSyncResourceVersion && cache.size === expected;
}

function residentMiB(field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/self/status", "utf8"));
  if (!match) throw new Error(`/proc/self/status has no ${field}`);
  return +(Number(match[1]) / 1024).toFixed(1);
}

async function nextLine(): Promise<void> {
  for await (const line of console) if (line.trim() === "relist") return;
  throw new Error("stdin ended before 'relist'");
}
