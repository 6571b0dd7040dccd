// A controller manager with one controller: the ConfigMap mirror. Build it with
//   bun build --compile main.ts --outfile configmap-mirror
import { runCommand } from "kube-loom";
import { configMapMirror } from "./controller.ts";

process.exit(await runCommand(process.argv.slice(2), [configMapMirror], { name: "configmap-mirror", version: "0.1.0" }));
