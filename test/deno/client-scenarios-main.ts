// Runs the client scenarios under Deno: `deno run --allow-all test/deno/client-scenarios-main.ts <fixture.json>`.
// Prints one JSON line {"passed": [...]} on success; throws (exit 1) on the first failure.
import { readFileSync } from "node:fs";
import { runAllScenarios, type ClientFixture } from "../integration/client-scenarios.ts";

const fixturePath = process.argv[2];
if (!fixturePath) throw new Error("usage: client-scenarios-main.ts <fixture.json>");
const fixture = JSON.parse(readFileSync(fixturePath, "utf8")) as ClientFixture;
console.log(JSON.stringify({ runtime: "deno", passed: await runAllScenarios(fixture) }));
