// What setup-envtest gives controller-runtime's users: etcd and kube-apiserver of a chosen release
// in one folder, under the names envtest looks for, to name in KUBEBUILDER_ASSETS. The binaries are
// built from the Go modules kube-loom pins (Go needed, once per release) and cached.
import { existsSync, mkdirSync, readlinkSync, renameSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { etcdBinary, kubernetesBinary, selectKubernetesVersion } from "./control-plane-releases.ts";
import { ensureGoBinary, onPath } from "./go-build.ts";

/** What setupAssets builds and where. */
export interface SetupAssetsOptions {
  /** Holds `bin/` (the binaries by name and version) and `kubebuilder-assets/<version>/`. Default: `$XDG_CACHE_HOME/kube-loom`, else `~/.cache/kube-loom`. */
  cacheDir?: string | undefined;
  /** Told what is being built and how long it takes; default: stderr. */
  log?: ((message: string) => void) | undefined;
}

/** The cache folder setupAssets uses when none is given. */
export function defaultAssetsCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kube-loom");
}

/**
 * Builds (unless cached) etcd and kube-apiserver of a supported Kubernetes release (`"1.37"`,
 * `"v1.36.3"`; default the newest) and returns the folder to name in `KUBEBUILDER_ASSETS`: `etcd`,
 * `kube-apiserver`, and `kubectl` when one is on PATH, as links. Needs Go ≥ 1.26 on PATH for a
 * release not built yet: about 6 minutes on 2 cores. Throws for a release kube-loom does not support.
 */
export async function setupAssets(release?: string | undefined, options: SetupAssetsOptions = {}): Promise<string> {
  const version = selectKubernetesVersion(release);
  const cacheDir = options.cacheDir ?? defaultAssetsCacheDir();
  const log = options.log ?? ((message: string) => process.stderr.write(`[kube-loom assets] ${message}\n`));
  const binDir = join(cacheDir, "bin");
  // One after the other: parallel Go builds on 2 cores only thrash.
  const etcd = await ensureGoBinary(etcdBinary(), binDir, log);
  const kubeApiserver = await ensureGoBinary(kubernetesBinary("kube-apiserver", version, "5 min"), binDir, log);
  const dir = join(cacheDir, "kubebuilder-assets", version);
  mkdirSync(dir, { recursive: true });
  const links: Record<string, string | undefined> = { etcd, "kube-apiserver": kubeApiserver, kubectl: onPath("kubectl") };
  for (const [name, target] of Object.entries(links)) if (target) link(join(dir, name), target);
  return dir;
}

/** Points `path` at `target`, replacing any other link in one step (other processes may be reading it). */
function link(path: string, target: string): void {
  if (existsSync(path) && readlinkSync(path) === target) return;
  const temporary = `${path}.${process.pid}`;
  symlinkSync(target, temporary);
  renameSync(temporary, path);
}
