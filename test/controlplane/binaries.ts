// Builds kube-apiserver, etcd (and on request kube-controller-manager, kube-scheduler and kwok)
// from the pinned Go modules under tools/, caching them in .cache/bin/ by version. This needs Go.
// The build and the releases are kube-loom/testing's (pkg/testing/go-build.ts,
// control-plane-releases.ts), whose users get etcd and kube-apiserver the same way with
// kube-loom-testing-assets, or bring theirs as envtest's do (pkg/testing/binary-assets.ts).
import { join, resolve } from "node:path";
import { errorMessage } from "../../pkg/errors/expected-error.ts";
import type { ControlPlaneBinaries } from "../../pkg/testing/binary-assets.ts";
import { etcdBinary, kubernetesBinary, type KubernetesVersion, selectKubernetesVersion } from "../../pkg/testing/control-plane-releases.ts";
import { ensureGoBinary, type GoBinary } from "../../pkg/testing/go-build.ts";

export { ETCD_VERSION, type KubernetesVersion, SUPPORTED_KUBERNETES_VERSIONS, selectKubernetesVersion } from "../../pkg/testing/control-plane-releases.ts";
export const KWOK_VERSION = "v0.8.0";

/**
 * The release the tests, the local cluster and the benchmarks run: the newest, unless
 * KUBE_VERSION names another supported one by minor (`1.35`) or in full (`v1.35.4`).
 */
export const KUBERNETES_VERSION: KubernetesVersion = kubeVersionFromEnvironment();

function kubeVersionFromEnvironment(): KubernetesVersion {
  try {
    return selectKubernetesVersion(process.env.KUBE_VERSION);
  } catch (error) {
    throw new Error(`KUBE_VERSION=${errorMessage(error)}`);
  }
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

const kwokBinary: GoBinary = {
  name: "kwok",
  version: KWOK_VERSION,
  moduleDir: join(repoRoot, "tools", "kwok"),
  goPackage: "sigs.k8s.io/kwok/cmd/kwok",
  // Stamped like kwok's release builds; the fake nodes report it as their kubelet version.
  ldflags: `-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION}`,
  firstBuildTime: "2.5 min",
};

export function ensureBinaries(options: { withLocalCluster: true }): Promise<LocalClusterBinaries>;
export function ensureBinaries(options: { withControllerManager: true }): Promise<BinariesWithControllerManager>;
export function ensureBinaries(options?: EnsureBinariesOptions): Promise<Binaries>;
export async function ensureBinaries(options: EnsureBinariesOptions = {}): Promise<Binaries> {
  // Sequential on purpose: parallel Go builds on 2 cores only thrash.
  const etcd = await ensureBinary(etcdBinary());
  const kubeApiserver = await ensureBinary(kubernetesBinary("kube-apiserver", KUBERNETES_VERSION, "5 min"));
  if (!options.withControllerManager && !options.withLocalCluster) return { kubeApiserver, etcd };
  const kubeControllerManager = await ensureBinary(kubernetesBinary("kube-controller-manager", KUBERNETES_VERSION, "3 min"));
  if (!options.withLocalCluster) return { kubeApiserver, etcd, kubeControllerManager };
  const kubeScheduler = await ensureBinary(kubernetesBinary("kube-scheduler", KUBERNETES_VERSION, "15 s"));
  const kwok = await ensureBinary(kwokBinary);
  return { kubeApiserver, etcd, kubeControllerManager, kubeScheduler, kwok };
}

function ensureBinary(binary: GoBinary): Promise<string> {
  return ensureGoBinary(binary, binaryCacheDir, log);
}

function log(message: string): void {
  process.stderr.write(`[controlplane/binaries] ${message}\n`);
}
