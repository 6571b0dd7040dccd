// The kube-loom-testing-assets command (setup-envtest's `use`): builds or finds etcd and
// kube-apiserver of a release and prints the line that names their folder, for a shell or CI:
//   export $(npx kube-loom-testing-assets 1.37)
import { parseArgs } from "node:util";
import { errorMessage } from "../errors/expected-error.ts";
import { SUPPORTED_KUBERNETES_VERSIONS, selectKubernetesVersion } from "./control-plane-releases.ts";
import { defaultAssetsCacheDir, setupAssets } from "./setup-assets.ts";

const COMMAND = "kube-loom-testing-assets";

const usage = `Usage: ${COMMAND} [VERSION] [--cache-dir DIR]

Builds (once, with Go >= 1.26) etcd and kube-apiserver of a Kubernetes release from the Go
modules kube-loom pins, caches them, and prints KUBEBUILDER_ASSETS=<folder> for kube-loom/testing.

  VERSION          ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}, or a minor such as 1.36 (default: the newest)
  --cache-dir DIR  where binaries are kept (default: ${defaultAssetsCacheDir()})
  -h, --help       this text
`;

/** Where the command writes: its answer, and everything else. */
export interface CommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Runs the command with `args` (without the program name); resolves with its exit code: 0, 1 when a build failed, 2 for a usage error. */
export async function assetsCommand(args: string[], output: CommandOutput): Promise<number> {
  let version: string;
  let cacheDir: string | undefined;
  try {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { "cache-dir": { type: "string" }, help: { type: "boolean", short: "h" } } });
    if (values.help) {
      output.stdout(usage);
      return 0;
    }
    if (positionals.length > 1) throw new Error(`one VERSION at most, got ${positionals.join(" ")}`);
    version = selectKubernetesVersion(positionals[0]);
    cacheDir = values["cache-dir"];
  } catch (error) {
    output.stderr(`${COMMAND}: ${errorMessage(error)}\n${usage}`);
    return 2;
  }
  try {
    const dir = await setupAssets(version, { cacheDir, log: (message) => output.stderr(`${COMMAND}: ${message}\n`) });
    output.stdout(`KUBEBUILDER_ASSETS=${dir}\n`);
    return 0;
  } catch (error) {
    output.stderr(`${COMMAND}: ${errorMessage(error)}\n`);
    return 1;
  }
}
