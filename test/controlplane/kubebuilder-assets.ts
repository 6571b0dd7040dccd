// The project's control-plane binaries as envtest expects to find them: a folder with etcd,
// kube-apiserver and kubectl under those names (symlinks into .cache/bin/), for KUBEBUILDER_ASSETS.
//   KUBEBUILDER_ASSETS=$(bun test/controlplane/kubebuilder-assets.ts) bun test examples/
import { existsSync, mkdirSync, readlinkSync, renameSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { binaryCacheDir, ensureBinaries, KUBERNETES_VERSION } from "./binaries.ts";

/** Builds the binaries if needed and returns the folder of envtest-named links to them. */
export async function kubebuilderAssets(): Promise<string> {
  const binaries = await ensureBinaries();
  const dir = join(binaryCacheDir, "..", "kubebuilder-assets", KUBERNETES_VERSION);
  mkdirSync(dir, { recursive: true });
  const kubectl = onPath("kubectl");
  const links: Record<string, string | undefined> = { etcd: binaries.etcd, "kube-apiserver": binaries.kubeApiserver, kubectl };
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

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, program);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

if (import.meta.main) console.log(await kubebuilderAssets());
