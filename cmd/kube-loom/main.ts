#!/usr/bin/env node
// kube-loom: a kube-controller-manager in TypeScript. Wiring only; see pkg/manager.
import { builtinControllers } from "../../controllers/registry.ts";
import { runCommand } from "../../pkg/manager/run-command.ts";
import { kubeLoomProgram } from "../../pkg/version.ts";

process.exit(await runCommand(process.argv.slice(2), builtinControllers, kubeLoomProgram));
