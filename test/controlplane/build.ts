// CI step before `bun test`: builds the control-plane binaries outside any test timeout.
// Usage: bun test/controlplane/build.ts [--with-controller-manager] [--with-local-cluster]
import { binaryCacheDir, ensureBinaries } from "./binaries.ts";

const binaries = await ensureBinaries({
  withControllerManager: process.argv.includes("--with-controller-manager"),
  withLocalCluster: process.argv.includes("--with-local-cluster"),
});
for (const [name, path] of Object.entries(binaries)) console.log(`${name}: ${path}`);
console.error(`binary cache: ${binaryCacheDir}`);
