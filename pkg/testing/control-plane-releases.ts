// The etcd and kube-apiserver releases kube-loom is tested with, and how each is built: from a
// Go module under tools/ (shipped in the npm package) that pins the release and its dependencies,
// stamped with its version as upstream's release builds are.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { GoBinary } from "./go-build.ts";

/**
 * The Kubernetes releases kube-loom supports, newest first: the releases upstream still maintains.
 * Each has its own Go module under tools/kubernetes/<version>/ (the only other place they appear).
 */
export const SUPPORTED_KUBERNETES_VERSIONS = ["v1.37.2", "v1.36.3", "v1.35.4"] as const;

/** One of SUPPORTED_KUBERNETES_VERSIONS. */
export type KubernetesVersion = (typeof SUPPORTED_KUBERNETES_VERSIONS)[number];

/** etcd as Kubernetes v1.37 is tested with it; the older API servers speak the same etcd v3 API. */
export const ETCD_VERSION = "v3.7.0";

/** The supported release `requested` names by minor (`1.35`, `v1.35`) or in full (`v1.35.4`); the newest when it is empty. */
export function selectKubernetesVersion(requested: string | undefined): KubernetesVersion {
  if (requested === undefined || requested === "") return SUPPORTED_KUBERNETES_VERSIONS[0];
  const wanted = requested.startsWith("v") ? requested : `v${requested}`;
  const match = SUPPORTED_KUBERNETES_VERSIONS.find((version) => version === wanted || version.startsWith(`${wanted}.`));
  if (!match) {
    throw new Error(`${requested} is not a supported Kubernetes release (expected one of ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}, or its minor such as 1.36)`);
  }
  return match;
}

/** The folder holding tools/: the repository, or the installed package (whose JavaScript sits under dist/npm/). */
function toolsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "tools", "etcd", "go.mod"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("kube-loom's tools/ folder (the Go modules of etcd and Kubernetes) is missing");
    dir = parent;
  }
  return join(dir, "tools");
}

// Same version stamping as upstream hack/lib/version.sh, so /version and kubectl see a real release.
function kubernetesLdflags(version: KubernetesVersion): string {
  const minor = version.split(".")[1] ?? "";
  const stamps = ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=1`,
    `-X ${pkg}.gitMinor=${minor}`,
  ]);
  return ["-s -w", ...stamps].join(" ");
}

/** A program of the Kubernetes release, e.g. `kubernetesBinary("kube-apiserver", "v1.37.2", "5 min")`. */
export function kubernetesBinary(name: string, version: KubernetesVersion, firstBuildTime: string): GoBinary {
  return {
    name,
    version,
    moduleDir: join(toolsDir(), "kubernetes", version),
    goPackage: `k8s.io/kubernetes/cmd/${name}`,
    ldflags: kubernetesLdflags(version),
    firstBuildTime,
  };
}

/** etcd at ETCD_VERSION. */
export function etcdBinary(): GoBinary {
  return { name: "etcd", version: ETCD_VERSION, moduleDir: join(toolsDir(), "etcd"), goPackage: "go.etcd.io/etcd/server/v3", ldflags: "-s -w", firstBuildTime: "1 min" };
}
