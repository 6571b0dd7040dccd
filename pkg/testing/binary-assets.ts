// Where the control plane's programs come from, looked up by controller-runtime's envtest rules, so
// a folder that `setup-envtest use -p path` prints works as it is:
//   1. TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER, TEST_ASSET_KUBECTL (one program each);
//   2. $KUBEBUILDER_ASSETS/<name>;
//   3. the folder given in the options;
//   4. /usr/local/kubebuilder/bin/<name>.
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The programs a control plane runs, as paths. */
export interface ControlPlaneBinaries {
  /** The etcd program. */
  etcd: string;
  /** The kube-apiserver program. */
  kubeApiserver: string;
  /** Default: `kubectl` on PATH. */
  kubectl?: string;
}

/** Where envtest looks for the binaries last, as controller-runtime's envtest does. */
export const DEFAULT_ASSETS_DIRECTORY = "/usr/local/kubebuilder/bin";

/** Where `findBinaryAssets` looks besides KUBEBUILDER_ASSETS, TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER. */
export interface FindBinaryAssetsOptions {
  /** Looked in after the environment variables (envtest's BinaryAssetsDirectory). */
  directory?: string | undefined;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
}

interface Located {
  path: string;
  /** Says where the path came from, for an error message. */
  source: string;
  /** Named by a variable of its own: used as given. */
  explicit: boolean;
}

/** The programs envtest would run; throws one line naming the missing one and where it was looked for. */
export function findBinaryAssets(options: FindBinaryAssetsOptions = {}): ControlPlaneBinaries {
  const etcd = locate("etcd", options);
  const kubeApiserver = locate("kube-apiserver", options);
  for (const program of [etcd, kubeApiserver]) {
    if (!existsSync(program.path)) {
      throw new Error(
        `${program.path} does not exist (${program.source}): expected etcd and kube-apiserver there; ` +
          "run `export $(npx kube-loom-testing-assets)` to build them and set KUBEBUILDER_ASSETS, " +
          "or set it to a folder holding them, such as `setup-envtest use -p path` prints",
      );
    }
  }
  const kubectl = locate("kubectl", options);
  // Only needed by ControlPlane.kubectl: a folder without it falls back to the one on PATH.
  const useKubectl = kubectl.explicit || existsSync(kubectl.path);
  return { etcd: etcd.path, kubeApiserver: kubeApiserver.path, ...(useKubectl ? { kubectl: kubectl.path } : {}) };
}

/** envtest's variable for one program: TEST_ASSET_ and its name in capitals, other characters as "_". */
export function assetVariable(program: string): string {
  return `TEST_ASSET_${program.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^[0-9]+/, "")}`;
}

function locate(program: string, options: FindBinaryAssetsOptions): Located {
  const env = options.env ?? process.env;
  const variable = assetVariable(program);
  const own = env[variable];
  if (own !== undefined) return { path: own, source: `from ${variable}`, explicit: true };
  const assets = env.KUBEBUILDER_ASSETS;
  if (assets !== undefined) return { path: join(assets, program), source: "from KUBEBUILDER_ASSETS", explicit: false };
  if (options.directory) return { path: join(options.directory, program), source: "from the binaryAssetsDirectory option", explicit: false };
  return { path: join(DEFAULT_ASSETS_DIRECTORY, program), source: `neither ${variable} nor KUBEBUILDER_ASSETS is set`, explicit: false };
}
