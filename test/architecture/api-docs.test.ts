// The API reference in docs/api is generated from the doc comments of what "kube-loom" and
// "kube-loom/testing" export, and of the types their signatures reach (tools/api-docs/generate.ts,
// `npm run docs:api`). One run of the generator into a temporary folder shows whether every symbol
// of the reference has a doc comment, and whether docs/api is exactly what the sources generate, so
// the committed reference never drifts from the code.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "../..");
const committedDir = join(repoRoot, "docs/api");
// TypeDoc runs on Node; the pinned one, as `npm run docs:api` runs it.
const node = join(repoRoot, "node_modules/.bin/node");
const regenerate = "run `npm run docs:api` and commit docs/api";

interface Run {
  exitCode: number;
  output: string;
}

async function run(command: string[]): Promise<Run> {
  const child = Bun.spawn(command, { cwd: repoRoot, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, output: stdout + stderr };
}

/** Every file under `dir`, by path relative to it, with its text. */
function filesUnder(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    else files.set(relative(dir, path), readFileSync(path, "utf8"));
  };
  walk(dir);
  return files;
}

let generatedDir: string;
let generator: Run;

beforeAll(async () => {
  generatedDir = mkdtempSync(join(tmpdir(), "kube-loom-api-docs-"));
  generator = await run([node, "tools/api-docs/generate.ts", "--out", generatedDir]);
}, 600_000);

afterAll(() => rmSync(generatedDir, { recursive: true, force: true }));

describe("API reference (docs/api)", () => {
  test("every symbol the package entries reach has a doc comment", () => {
    const warnings = generator.output.split("\n").filter((line) => line.includes("[warning]") && !/Found \d+ errors and \d+ warnings/.test(line));
    expect(warnings).toEqual([]);
    if (generator.exitCode !== 0) throw new Error(`tools/api-docs/generate.ts exited with ${generator.exitCode}:\n${generator.output}`);
  });

  test("docs/api is what the sources generate", () => {
    const committed = filesUnder(committedDir);
    const generated = filesUnder(generatedDir);
    const missing = [...generated.keys()].filter((path) => !committed.has(path));
    const stale = [...committed.keys()].filter((path) => !generated.has(path));
    const changed = [...generated].filter(([path, text]) => committed.has(path) && committed.get(path) !== text).map(([path]) => path);
    const differences = [...missing.map((path) => `missing: ${path}`), ...stale.map((path) => `no longer generated: ${path}`), ...changed.map((path) => `differs: ${path}`)];
    if (differences.length > 0) throw new Error(`docs/api is out of date (${differences.length} files): ${regenerate}\n${differences.slice(0, 20).join("\n")}`);
  });

  test("the generator type-checks", async () => {
    const tsc = await run([join(repoRoot, "node_modules/.bin/tsc"), "-p", "tools/api-docs"]);
    expect(tsc.output).toBe("");
    expect(tsc.exitCode).toBe(0);
  }, 60_000);
});
