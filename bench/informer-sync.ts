// Informer benchmark: time to sync and memory after sync for 10,000 and 50,000 ConfigMaps
// (~1 KiB each) on one real API server, for kube-loom's informer, its metadata-only informer,
// and @kubernetes/client-node's makeInformer. Each measurement runs in a fresh Bun process.
//   bun bench/informer-sync.ts [sizes, default 10000,50000]
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { createConfigMaps, ensureNamespace, fastClient } from "../test/integration/informer-fixtures.ts";
import { clientNodeKubeconfig } from "./client-node-kubeconfig.ts";
import { printTable } from "./print-table.ts";

const sizes = (process.argv[2] ?? "10000,50000").split(",").map(Number);
const variants = ["kube-loom", "kube-loom-metadata", "client-node"] as const;

interface Measurement {
  variant: string;
  syncMs: number;
  rssMiB: number;
  heapMiB: number;
  cached: number;
}

const controlPlane = await ControlPlane.start();
try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  const tokenKubeconfig = await clientNodeKubeconfig(controlPlane);
  const rows: { size: number; results: Measurement[] }[] = [];
  for (const size of sizes) {
    const namespace = `bench-${size}`;
    await ensureNamespace(client, namespace);
    const created = performance.now();
    await createConfigMaps(client, namespace, Array.from({ length: size }, (_, i) => `cm-${i}`), 1024);
    console.error(`created ${size} ConfigMaps of 1 KiB in ${((performance.now() - created) / 1000).toFixed(1)} s`);
    const results: Measurement[] = [];
    for (const variant of variants) {
      const kubeconfig = variant === "client-node" ? tokenKubeconfig : controlPlane.kubeconfigPath;
      results.push(await measure(variant, kubeconfig, namespace, size));
    }
    rows.push({ size, results });
  }
  printResults(rows);
} finally {
  await controlPlane.stop();
}

async function measure(variant: string, kubeconfig: string, namespace: string, size: number): Promise<Measurement> {
  const worker = Bun.spawn(["./node_modules/.bin/bun", "bench/informer-sync-worker.ts", variant, kubeconfig, namespace, String(size)], {
    stdout: "pipe",
    stderr: "pipe",
    // client-node's TLS options are ignored on Bun; the CA must come from the environment.
    env: { ...process.env, NODE_EXTRA_CA_CERTS: controlPlane.caFile },
  });
  const [code, stdout, stderr] = await Promise.all([worker.exited, new Response(worker.stdout).text(), new Response(worker.stderr).text()]);
  if (code !== 0) throw new Error(`${variant} worker failed (${code}): ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").pop() ?? "") as Measurement;
}

function printResults(rows: { size: number; results: Measurement[] }[]): void {
  const header = ["objects", "informer", "sync s", "RSS MiB", "heap MiB", "sync vs client-node", "RSS vs client-node"];
  const lines = [header];
  for (const { size, results } of rows) {
    const peer = results.find((r) => r.variant === "client-node");
    for (const r of results) {
      lines.push([
        String(size),
        r.variant,
        (r.syncMs / 1000).toFixed(2),
        r.rssMiB.toFixed(0),
        r.heapMiB.toFixed(0),
        peer ? `${(r.syncMs / peer.syncMs).toFixed(2)}×` : "",
        peer ? `${(r.rssMiB / peer.rssMiB).toFixed(2)}×` : "",
      ]);
    }
  }
  printTable(lines);
}
