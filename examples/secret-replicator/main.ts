// kube-loom's built-in controllers plus two of our own, in one controller manager. Build it with
//   bun build --compile main.ts --outfile secret-replicator
import { builtinControllers, runCommand } from "kube-loom";
import { podCounter } from "./pod-counter.ts";
import { secretReplicator } from "./secret-replicator.ts";

const controllers = [...builtinControllers, secretReplicator, podCounter];
process.exit(await runCommand(process.argv.slice(2), controllers, { name: "secret-replicator", version: "0.1.0" }));
