// Informer benchmark: time to sync and memory (peak, and after sync) for 10,000 and 50,000
// ConfigMaps (~1 KiB each) on one real API server, for kube-loom's informer and its
// metadata-only informer, each filled by a streaming list (the default) and by LIST, client-go's
// (the library kube-controller-manager is built from: a SharedInformerFactory informer over JSON
// like kube-loom and over protobuf as kube-controller-manager sets it up, and a metadata
// informer), @kubernetes/client-node's makeInformer, and the limit: the same first LIST read to
// its last byte without decoding. Each measurement runs in a fresh process; rounds are
// interleaved and medians reported.
// kube-loom reads protobuf as kube-controller-manager does; its "-json" variants read JSON, as before.
//   bun bench/informer-sync.ts [sizes, default 10000,50000] [rounds, default 3] [variants, default all, e.g. kube-loom,kube-loom-list]
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { createConfigMaps, ensureNamespace, fastClient } from "../test/integration/informer-fixtures.ts";
import { clientNodeKubeconfig } from "./client-node-kubeconfig.ts";
import { clientGoPeer, runClientGoPeer } from "./client-go-peer.ts";
import { describeMachine } from "./machine.ts";
import { printTable } from "./print-table.ts";
import { cpuSeconds } from "./process-usage.ts";
import { median, ratio } from "./statistics.ts";

const sizes = (process.argv[2] ?? "10000,50000").split(",").map(Number);
const rounds = Number(process.argv[3] ?? 3);
/** kube-loom's default client limits, given to every client that has a limiter. */
const qps = "20";
const burst = "30";

type Variant =
  | "kube-loom"
  | "kube-loom-list"
  | "kube-loom-json"
  | "kube-loom-metadata-json"
  | "kube-loom-metadata"
  | "kube-loom-metadata-list"
  | "client-go"
  | "client-go-protobuf"
  | "client-go-metadata"
  | "client-node"
  | "limit"
  | "limit-metadata";
const allVariants: readonly Variant[] = [
  "kube-loom",
  "kube-loom-list",
  "kube-loom-json",
  "kube-loom-metadata",
  "kube-loom-metadata-list",
  "kube-loom-metadata-json",
  "client-go",
  "client-go-protobuf",
  "client-go-metadata",
  "client-node",
  "limit",
  "limit-metadata",
];
const variants = process.argv[4] ? chosenVariants(process.argv[4]) : allVariants;
const labels: Record<Variant, string> = {
  "kube-loom": "kube-loom (streaming list)",
  "kube-loom-list": "kube-loom, LIST",
  "kube-loom-json": "kube-loom over JSON (--kube-api-content-type=application/json)",
  "kube-loom-metadata-json": "kube-loom metadata-only over JSON",
  "kube-loom-metadata": "kube-loom metadata-only (streaming list)",
  "kube-loom-metadata-list": "kube-loom metadata-only, LIST",
  "client-go": "client-go SharedInformerFactory, JSON",
  "client-go-protobuf": "client-go SharedInformerFactory, protobuf",
  "client-go-metadata": "client-go metadatainformer",
  "client-node": "client-node `makeInformer`",
  limit: "limit: raw LIST, undecoded",
  "limit-metadata": "limit: raw metadata LIST, undecoded",
};
/** Whom each variant is compared with: client-go reading the same encoding, and the limit of the same kind. */
const references: Record<Variant, { clientGo: Variant; limit: Variant }> = {
  "kube-loom": { clientGo: "client-go-protobuf", limit: "limit" },
  "kube-loom-list": { clientGo: "client-go-protobuf", limit: "limit" },
  "kube-loom-json": { clientGo: "client-go", limit: "limit" },
  "kube-loom-metadata-json": { clientGo: "client-go-metadata", limit: "limit-metadata" },
  "kube-loom-metadata": { clientGo: "client-go-metadata", limit: "limit-metadata" },
  "kube-loom-metadata-list": { clientGo: "client-go-metadata", limit: "limit-metadata" },
  "client-go": { clientGo: "client-go", limit: "limit" },
  "client-go-protobuf": { clientGo: "client-go", limit: "limit" },
  "client-go-metadata": { clientGo: "client-go-metadata", limit: "limit-metadata" },
  "client-node": { clientGo: "client-go", limit: "limit" },
  limit: { clientGo: "client-go", limit: "limit" },
  "limit-metadata": { clientGo: "client-go-metadata", limit: "limit-metadata" },
};

interface Measurement {
  syncMs: number;
  /** Absent for the limit, which keeps nothing. */
  rssMiB?: number;
  /** The same process before the informer existed. */
  baseRssMiB?: number;
  /** The highest RSS seen during the sync (kube-loom's and client-node's workers). */
  peakRssMiB?: number;
  heapMiB?: number;
  /** CPU seconds kube-apiserver spent while this informer synced. */
  apiserverCpuS?: number;
}

/** Variants measured by the client-go peer, which is built (in Go) only when one is chosen. */
const peerVariants: readonly Variant[] = ["client-go", "client-go-protobuf", "client-go-metadata", "limit", "limit-metadata"];
const [controlPlane] = await Promise.all([ControlPlane.start(), variants.some((v) => peerVariants.includes(v)) ? clientGoPeer() : undefined]);
try {
  const client = await fastClient(controlPlane.kubeconfigPath);
  const tokenKubeconfig = await clientNodeKubeconfig(controlPlane);
  const results = new Map<string, Measurement[]>();
  for (const size of sizes) {
    const namespace = `bench-${size}`;
    await ensureNamespace(client, namespace);
    const created = performance.now();
    await createConfigMaps(client, namespace, Array.from({ length: size }, (_, i) => `cm-${i}`), 1024);
    console.error(`created ${size} ConfigMaps of 1 KiB in ${((performance.now() - created) / 1000).toFixed(1)} s`);
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        const kubeconfig = variant === "client-node" ? tokenKubeconfig : controlPlane.kubeconfigPath;
        const apiserverPid = controlPlane.pids.at(-1) ?? 0;
        const cpuBefore = cpuSeconds(apiserverPid);
        const measurement = { ...(await measure(variant, kubeconfig, namespace, size)), apiserverCpuS: cpuSeconds(apiserverPid) - cpuBefore };
        console.error(`${size} ${variant} round ${round}: ${JSON.stringify(measurement)}`);
        const key = `${size} ${variant}`;
        results.set(key, [...(results.get(key) ?? []), measurement]);
      }
    }
  }
  printResults(results);
} finally {
  await controlPlane.stop();
}

function chosenVariants(list: string): Variant[] {
  const chosen = list.split(",");
  const unknown = chosen.filter((name) => !allVariants.includes(name as Variant));
  if (unknown.length > 0) {
    console.error(`unknown variant "${unknown.join(",")}": expected a comma-separated list of ${allVariants.join(", ")}`);
    process.exit(2);
  }
  return allVariants.filter((variant) => chosen.includes(variant));
}

function measure(variant: Variant, kubeconfig: string, namespace: string, size: number): Promise<Measurement> {
  switch (variant) {
    case "client-go":
      return runClientGoPeer(["informer", kubeconfig, namespace, String(size), qps, burst]);
    case "client-go-protobuf":
      return runClientGoPeer(["informer-protobuf", kubeconfig, namespace, String(size), qps, burst]);
    case "client-go-metadata":
      return runClientGoPeer(["metadata-informer", kubeconfig, namespace, String(size), qps, burst]);
    case "limit":
    case "limit-metadata":
      return runClientGoPeer(["list", kubeconfig, `/api/v1/namespaces/${namespace}/configmaps`, variant === "limit" ? "full" : "metadata", qps, burst]);
    default:
      return measureInBun(variant, kubeconfig, namespace, size);
  }
}

async function measureInBun(variant: Variant, kubeconfig: string, namespace: string, size: number): Promise<Measurement> {
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

function printResults(results: Map<string, Measurement[]>): void {
  const header = [
    "objects",
    "informer",
    "sync s",
    "RSS MiB",
    "RSS added MiB",
    "peak RSS MiB",
    "heap MiB",
    "apiserver CPU s",
    "sync vs client-go",
    "sync vs limit",
    "sync vs client-node",
    "RSS vs client-go",
    "RSS vs client-node",
  ];
  const lines = [header];
  for (const size of sizes) {
    const pick = (variant: Variant, field: keyof Measurement | "addedMiB") => {
      const value = (m: Measurement) => (field === "addedMiB" ? (m.rssMiB ?? Number.NaN) - (m.baseRssMiB ?? Number.NaN) : m[field]);
      const values = (results.get(`${size} ${variant}`) ?? []).map(value).filter((v): v is number => v !== undefined && !Number.isNaN(v));
      return values.length > 0 ? median(values) : undefined;
    };
    for (const variant of variants) {
      const syncMs = pick(variant, "syncMs") ?? Number.NaN;
      const rss = pick(variant, "rssMiB");
      const heap = pick(variant, "heapMiB");
      const { clientGo, limit } = references[variant];
      const full = !variant.includes("metadata");
      lines.push([
        size.toLocaleString("en-US"),
        labels[variant],
        (syncMs / 1000).toFixed(2),
        rss?.toFixed(0) ?? "",
        pick(variant, "addedMiB")?.toFixed(0) ?? "",
        pick(variant, "peakRssMiB")?.toFixed(0) ?? "",
        heap?.toFixed(0) ?? "",
        pick(variant, "apiserverCpuS")?.toFixed(2) ?? "",
        ratio(syncMs, pick(clientGo, "syncMs")),
        ratio(syncMs, pick(limit, "syncMs")),
        full ? ratio(syncMs, pick("client-node", "syncMs")) : "",
        rss === undefined ? "" : ratio(rss, pick(clientGo, "rssMiB")),
        rss === undefined || !full ? "" : ratio(rss, pick("client-node", "rssMiB")),
      ]);
    }
    const metadataShare = (metadata: Variant, fullVariant: Variant) =>
      `${ratio(pick(metadata, "rssMiB") ?? Number.NaN, pick(fullVariant, "rssMiB"))} (added: ${ratio(pick(metadata, "addedMiB") ?? Number.NaN, pick(fullVariant, "addedMiB"))})`;
    const protobuf = (field: "syncMs" | "rssMiB") => ratio(pick("kube-loom", field) ?? Number.NaN, pick("client-go-protobuf", field));
    const streamedVsListed = (streamed: Variant, listed: Variant) =>
      (["syncMs", "peakRssMiB", "rssMiB"] as const).map((field) => `${field} ${ratio(pick(streamed, field) ?? Number.NaN, pick(listed, field))}`).join(", ");
    console.log(
      `${size.toLocaleString("en-US")} objects: streaming list / LIST: kube-loom ${streamedVsListed("kube-loom", "kube-loom-list")}; ` +
        `metadata-only ${streamedVsListed("kube-loom-metadata", "kube-loom-metadata-list")}`,
    );
    console.log(
      `${size.toLocaleString("en-US")} objects: metadata-only RSS / full RSS: kube-loom ${metadataShare("kube-loom-metadata", "kube-loom")}, ` +
        `client-go ${metadataShare("client-go-metadata", "client-go")}; kube-loom vs client-go with protobuf: sync ${protobuf("syncMs")}, RSS ${protobuf("rssMiB")}`,
    );
  }
  console.log(
    `medians of ${rounds} interleaved rounds, each in a fresh process; clients limited to qps ${qps} / burst ${burst} (client-node has no limiter); ` +
      "RSS added: RSS after sync minus the same process's before the informer existed",
  );
  console.log(describeMachine());
  printTable(lines);
}
