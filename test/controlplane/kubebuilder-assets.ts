// The project's control-plane binaries as envtest expects to find them: a folder with etcd,
// kube-apiserver and kubectl under those names (links into .cache/bin/), for KUBEBUILDER_ASSETS.
// The same folder kube-loom-testing-assets makes for a user, with this repository's .cache.
//   KUBEBUILDER_ASSETS=$(bun test/controlplane/kubebuilder-assets.ts) bun test examples/
import { dirname } from "node:path";
import { setupAssets } from "../../pkg/testing/setup-assets.ts";
import { binaryCacheDir, KUBERNETES_VERSION } from "./binaries.ts";

/** Builds the binaries if needed and returns the folder of envtest-named links to them. */
export function kubebuilderAssets(): Promise<string> {
  return setupAssets(KUBERNETES_VERSION, { cacheDir: dirname(binaryCacheDir) });
}

if (import.meta.main) console.log(await kubebuilderAssets());
