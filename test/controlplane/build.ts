// CI step before `bun test`: builds the control-plane binaries outside any test timeout, for the
// release KUBE_VERSION names (default: the newest supported).
// Usage: bun test/controlplane/build.ts [--with-controller-manager] [--with-local-cluster]
import { errorMessage } from "../../pkg/errors/expected-error.ts";

// Imported here, not above, so that a KUBE_VERSION naming no supported release is one line, not a stack.
const loaded = await import("./binaries.ts").catch((error: unknown) => {
  console.error(`build: ${errorMessage(error)}`);
  process.exit(2);
});
const binaries = await loaded.ensureBinaries({
  withControllerManager: process.argv.includes("--with-controller-manager"),
  withLocalCluster: process.argv.includes("--with-local-cluster"),
});
for (const [name, path] of Object.entries(binaries)) console.log(`${name}: ${path}`);
console.error(`binary cache: ${loaded.binaryCacheDir}`);
