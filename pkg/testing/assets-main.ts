#!/usr/bin/env node
// The kube-loom-testing-assets executable (package.json "bin"); assets-command.ts is the command.
import { assetsCommand } from "./assets-command.ts";

process.exitCode = await assetsCommand(process.argv.slice(2), { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
