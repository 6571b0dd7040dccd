// Chaos soak: two kube-loom replicas with leader election (or, with --sharded, a shard ring of
// three that replicas join and leave) against a real control plane, a workload and faults for a
// fixed time (process faults, and a fault proxy's bad answers beside them), invariants checked
// from an independent watch and the API server's audit log. Prints the counts and figures, each
// replica's RSS and sockets over time and any stack trace in the replicas' logs; exits 1 on any
// violation (growth beyond the rule in soak/replica-usage.ts counts as one in a long run).
//   bun bench/soak.ts [--sharded] [--minutes 10] [--seed N] [--ops-per-second 3] [--fault-interval-seconds 15] [--watch-cache] [--freeze] [--log-dir DIR]
import { runSoak } from "./soak/run-soak.ts";
import { parseSoakArgs, soakUsage, type SoakOptions } from "./soak/soak-options.ts";
import { printSoakReport } from "./soak/soak-report.ts";

let options: SoakOptions;
try {
  options = parseSoakArgs(process.argv.slice(2));
} catch (err) {
  console.error(`${err instanceof Error ? err.message : String(err)}\n${soakUsage}`);
  process.exit(2);
}
const result = await runSoak(options);
printSoakReport(result);
process.exit(result.tally.violationTotal > 0 ? 1 : 0);
