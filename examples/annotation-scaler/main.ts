// A controller manager with one controller: the annotation scaler. Build it with
//   bun build --compile main.ts --outfile annotation-scaler
import { runCommand } from "kube-loom";
import { annotationScaler } from "./controller.ts";

process.exit(await runCommand(process.argv.slice(2), [annotationScaler], { name: "annotation-scaler", version: "0.1.0" }));
