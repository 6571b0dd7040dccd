// Creates many Networks at once and measures, per Network, the time from its create request to
// the first watch event showing it Ready at its generation. Used by the integration tests and
// bench/network-ready-latency.ts.
import { networkGVR, type Network } from "../../controllers/network/network-resource.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isReady, quantile } from "./network-fixture.ts";

export interface ReadyLatency {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Time from the first create to the last Ready. */
  totalMs: number;
}

/** Networks `${prefix}-0…n-1` with CIDRs 10.<i/256>.<i%256>.0/24 … (distinct from other tests' 172.16/12). */
export async function measureCreateToReady(client: KubeClient, namespace: string, prefix: string, count: number, timeoutMs: number): Promise<ReadyLatency> {
  const resource = client.dynamic.resource<Network>(networkGVR, namespace);
  const { metadata } = await resource.list({ limit: 1 });
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error(`not all ${count} Networks Ready within ${timeoutMs} ms`)), timeoutMs);
  const createdAt = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  let resourceVersion = metadata?.resourceVersion ?? "";
  const watch = () => resource.watch({ resourceVersion, allowWatchBookmarks: false }, stop.signal);
  const first = await watch();
  const allReady = (async () => {
    // The API server ends watches of a custom resource whenever its CRD changes: watch on from where it ended.
    for (let events = first; !stop.signal.aborted; events = await watch()) {
      for await (const event of events) {
        if (event.type === "ERROR") throw new Error(`watch failed: ${event.object.message}`);
        resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
        const name = event.object.metadata?.name ?? "";
        if (createdAt.has(name) && !readyAt.has(name) && isReady(event.object)) readyAt.set(name, Date.now());
        if (readyAt.size === count) return;
      }
    }
  })();
  const started = Date.now();
  try {
    await Promise.all(
      names.map(async (name, i) => {
        createdAt.set(name, Date.now());
        await resource.create({
          kind: "Network",
          metadata: { name, namespace },
          spec: { cidr: `10.${Math.floor(i / 256)}.${i % 256}.0/24`, gateway: `10.${Math.floor(i / 256)}.${i % 256}.1` },
        });
      }),
    );
    await allReady;
  } catch (err) {
    throw stop.signal.aborted ? new Error(`${String(stop.signal.reason)}: ${readyAt.size} were`) : err;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  const latencies = names.map((name) => (readyAt.get(name) ?? Number.NaN) - (createdAt.get(name) ?? Number.NaN));
  return {
    count,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: Math.max(...latencies),
    totalMs: Math.max(...readyAt.values()) - started,
  };
}
