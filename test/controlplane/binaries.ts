// Builds kube-apiserver, etcd (and on request kube-controller-manager, kube-scheduler and kwok)
// from the pinned Go modules under tools/, caching them in .cache/bin/ by version. This needs Go,
// so it is the project's own way to get them; kube-loom/testing's users bring theirs the way
// envtest's do (pkg/testing/binary-assets.ts).
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ControlPlaneBinaries } from "../../pkg/testing/binary-assets.ts";
import { withBuildLock } from "./build-lock.ts";
import { dyingWithThisProcess } from "./daemon-process.ts";

/**
 * The Kubernetes releases kube-loom supports, newest first: the releases upstream still maintains.
 * Each has its own Go module under tools/kubernetes/<version>/ (the only other place they appear).
 */
export const SUPPORTED_KUBERNETES_VERSIONS = ["v1.37.2", "v1.36.3", "v1.35.4"] as const;
export type KubernetesVersion = (typeof SUPPORTED_KUBERNETES_VERSIONS)[number];

/** etcd as Kubernetes v1.37 is tested with it; the older API servers speak the same etcd v3 API. */
export const ETCD_VERSION = "v3.7.0";
export const KWOK_VERSION = "v0.8.0";

/**
 * The release the tests, the local cluster and the benchmarks run: the newest, unless
 * KUBE_VERSION names another supported one by minor (`1.35`) or in full (`v1.35.4`).
 */
export const KUBERNETES_VERSION: KubernetesVersion = selectKubernetesVersion(process.env.KUBE_VERSION);

export function selectKubernetesVersion(requested: string | undefined): KubernetesVersion {
  if (requested === undefined || requested === "") return SUPPORTED_KUBERNETES_VERSIONS[0];
  const wanted = requested.startsWith("v") ? requested : `v${requested}`;
  const match = SUPPORTED_KUBERNETES_VERSIONS.find((version) => version === wanted || version.startsWith(`${wanted}.`));
  if (!match) {
    throw new Error(`KUBE_VERSION=${requested} is not a supported Kubernetes release (expected one of ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}, or its minor such as 1.36)`);
  }
  return match;
}

/** The minor release as a number (37 for v1.37.2), for tests that follow what changed between releases. */
export const KUBERNETES_MINOR = Number(KUBERNETES_VERSION.split(".")[1]);

const repoRoot = resolve(import.meta.dir, "../..");
export const binaryCacheDir = join(repoRoot, ".cache", "bin");

export interface Binaries extends ControlPlaneBinaries {
  kubeControllerManager?: string;
  kubeScheduler?: string;
  kwok?: string;
}

export type BinariesWithControllerManager = Binaries & { kubeControllerManager: string };

/** What LocalCluster runs besides etcd and kube-apiserver. */
export type LocalClusterBinaries = BinariesWithControllerManager & { kubeScheduler: string; kwok: string };

export interface EnsureBinariesOptions {
  /** kube-controller-manager alone, for comparison benchmarks. */
  withControllerManager?: boolean;
  /** kube-controller-manager, kube-scheduler and kwok: a cluster minus kubelets (see local-cluster.ts). */
  withLocalCluster?: boolean;
}

interface GoBinary {
  name: string;
  version: string;
  moduleDir: string;
  goPackage: string;
  ldflags: string;
  /** Measured on 2 cores, built in ensureBinaries' order (later builds reuse Go's cache of earlier ones). */
  firstBuildTime: string;
}

const PROGRESS_INTERVAL_MS = 15_000;

// Same version stamping as upstream hack/lib/version.sh, so /version and kubectl see a real release.
function kubernetesLdflags(): string {
  const minor = KUBERNETES_VERSION.split(".")[1] ?? "";
  const stamps = ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${pkg}.gitMajor=1`,
    `-X ${pkg}.gitMinor=${minor}`,
  ]);
  return ["-s -w", ...stamps].join(" ");
}

function kubernetesBinary(name: string, firstBuildTime: string): GoBinary {
  return {
    name,
    version: KUBERNETES_VERSION,
    moduleDir: join(repoRoot, "tools", "kubernetes", KUBERNETES_VERSION),
    goPackage: `k8s.io/kubernetes/cmd/${name}`,
    ldflags: kubernetesLdflags(),
    firstBuildTime,
  };
}

const etcdBinary: GoBinary = {
  name: "etcd",
  version: ETCD_VERSION,
  moduleDir: join(repoRoot, "tools", "etcd"),
  goPackage: "go.etcd.io/etcd/server/v3",
  ldflags: "-s -w",
  firstBuildTime: "1 min",
};

const kwokBinary: GoBinary = {
  name: "kwok",
  version: KWOK_VERSION,
  moduleDir: join(repoRoot, "tools", "kwok"),
  goPackage: "sigs.k8s.io/kwok/cmd/kwok",
  // Stamped like kwok's release builds; the fake nodes report it as their kubelet version.
  ldflags: `-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION}`,
  firstBuildTime: "2.5 min",
};

function binaryPath(binary: GoBinary): string {
  return join(binaryCacheDir, `${binary.name}-${binary.version}`);
}

// One build per binary per process, even when several callers ask at once.
const inFlightBuilds = new Map<string, Promise<string>>();

export function ensureBinaries(options: { withLocalCluster: true }): Promise<LocalClusterBinaries>;
export function ensureBinaries(options: { withControllerManager: true }): Promise<BinariesWithControllerManager>;
export function ensureBinaries(options?: EnsureBinariesOptions): Promise<Binaries>;
export async function ensureBinaries(options: EnsureBinariesOptions = {}): Promise<Binaries> {
  // Sequential on purpose: parallel Go builds on 2 cores only thrash.
  const etcd = await ensureBinary(etcdBinary);
  const kubeApiserver = await ensureBinary(kubernetesBinary("kube-apiserver", "5 min"));
  if (!options.withControllerManager && !options.withLocalCluster) return { kubeApiserver, etcd };
  const kubeControllerManager = await ensureBinary(kubernetesBinary("kube-controller-manager", "3 min"));
  if (!options.withLocalCluster) return { kubeApiserver, etcd, kubeControllerManager };
  const kubeScheduler = await ensureBinary(kubernetesBinary("kube-scheduler", "15 s"));
  const kwok = await ensureBinary(kwokBinary);
  return { kubeApiserver, etcd, kubeControllerManager, kubeScheduler, kwok };
}

function ensureBinary(binary: GoBinary): Promise<string> {
  const target = binaryPath(binary);
  if (existsSync(target)) return Promise.resolve(target);
  let build = inFlightBuilds.get(target);
  if (!build) {
    mkdirSync(binaryCacheDir, { recursive: true });
    // Under the lock, because another process may have built it while we waited.
    const buildUnlessPresent = async () => (existsSync(target) ? target : await buildBinary(binary, target));
    build = withBuildLock(`${target}.lock`, log, buildUnlessPresent).finally(() => inFlightBuilds.delete(target));
    inFlightBuilds.set(target, build);
  }
  return build;
}

async function buildBinary(binary: GoBinary, target: string): Promise<string> {
  if (!Bun.which("go")) throw new Error(`cannot build ${binary.name}: no 'go' on PATH (Go >= 1.26 needed, or put a prebuilt binary at ${target})`);
  // go build writes the final name only when we rename, so an interrupted build leaves no half binary.
  const temporary = `${target}.partial-${process.pid}`;
  const label = `${binary.name} ${binary.version}`;
  const startedAt = performance.now();
  log(`building ${label} from ${binary.moduleDir} into ${binaryCacheDir} (once, then cached; first time about ${binary.firstBuildTime} on 2 cores)`);
  const elapsed = () => Math.round((performance.now() - startedAt) / 1000);
  const progress = setInterval(() => log(`still building ${label}: ${elapsed()} s`), PROGRESS_INTERVAL_MS);
  try {
    // Tied to us, so an interrupted test run does not leave a go build burning both cores.
    const go = Bun.spawn(
      dyingWithThisProcess(["go", "build", "-trimpath", "-ldflags", binary.ldflags, "-o", temporary, binary.goPackage]),
      {
        cwd: binary.moduleDir,
        env: { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0" },
        stdin: "ignore",
        stdout: "inherit",
        stderr: "pipe",
      },
    );
    const output = await forwardAndCollect(go.stderr);
    const exitCode = await go.exited;
    if (exitCode !== 0) {
      throw new Error(`go build of ${label} failed (exit ${exitCode}) in ${binary.moduleDir}:\n${output.slice(-4000)}`);
    }
    renameSync(temporary, target);
    log(`built ${label} in ${elapsed()} s: ${target}`);
    return target;
  } finally {
    clearInterval(progress);
    rmSync(temporary, { force: true });
  }
}

/** Streams go's diagnostics to our stderr as they come, and keeps them for the error message. */
async function forwardAndCollect(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let collected = "";
  for await (const chunk of stream) {
    process.stderr.write(chunk);
    collected += decoder.decode(chunk, { stream: true });
  }
  return collected + decoder.decode();
}

function log(message: string): void {
  process.stderr.write(`[controlplane/binaries] ${message}\n`);
}
