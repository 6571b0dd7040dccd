// The public API as a report: the declarations of what "kube-loom" and "kube-loom/testing" export
// and of every type their signatures reach, as tsc emits them for the npm package (doc comments
// and private members left out, since neither is API). The golden, public-api.d.ts.txt, records
// the version it was made for: the surface of a released version never changes, so a change
// needs a new version with its CHANGELOG entry, which says "Unreleased" until it is released.
//   npm run api:report   (writes the golden, unless that rule refuses)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "../..");
export const goldenPath = join(import.meta.dir, "golden/public-api.d.ts.txt");
const entryPoints = ["mod.d.ts", "pkg/testing/mod.d.ts"];

/** package.json's version, which the public API is released under. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
}

export interface ApiReport {
  /** The version the report was made for. */
  version: string;
  /** The declarations, file by file. */
  surface: string;
}

/** The report of the sources as they are, under package.json's version. */
export async function currentApiReport(): Promise<ApiReport> {
  const outDir = mkdtempSync(join(tmpdir(), "kube-loom-api-"));
  try {
    const tsc = Bun.spawn(
      [join(repoRoot, "node_modules/.bin/tsc"), "-p", "tsconfig.build.json", "--emitDeclarationOnly", "--removeComments", "--sourceMap", "false", "--declarationMap", "false", "--outDir", outDir],
      { cwd: repoRoot, stdout: "pipe", stderr: "pipe" },
    );
    const [code, output] = await Promise.all([tsc.exited, new Response(tsc.stdout).text()]);
    if (code !== 0) throw new Error(`tsc failed (${code}):\n${output}`);
    return { version: packageVersion(), surface: reachableDeclarations(outDir) };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * What stops `current` from replacing `golden` under semver, or undefined: a changed surface under
 * a released version (one whose CHANGELOG.md heading has a date), or a version without an entry.
 */
export function versionProblem(current: ApiReport, golden: ApiReport, changelog: string): string | undefined {
  const heading = new RegExp(`^## \\[${current.version.replaceAll(".", "\\.")}\\] - (.+)$`, "m").exec(changelog);
  if (!heading) return `CHANGELOG.md has no "## [${current.version}] - Unreleased" (or dated) entry for package.json's version`;
  const released = heading[1] !== "Unreleased";
  if (current.surface !== golden.surface && current.version === golden.version && released) {
    return `the public API changed, but ${current.version} is released: raise package.json's version (semver; while 0.x, the minor for a breaking change) and add its "## [x.y.z] - Unreleased" entry to CHANGELOG.md`;
  }
  return undefined;
}

export function readChangelog(): string {
  return readFileSync(join(repoRoot, "CHANGELOG.md"), "utf8");
}

export function readGolden(): ApiReport {
  const [header = "", ...rest] = readFileSync(goldenPath, "utf8").split("\n");
  return { version: /^\/\/ kube-loom@(\S+) public API$/.exec(header)?.[1] ?? "", surface: rest.join("\n") };
}

export function writeGolden(report: ApiReport): void {
  writeFileSync(goldenPath, `// kube-loom@${report.version} public API\n${report.surface}`);
}

/** The declaration files the entry points reach through their imports and re-exports, in path order. */
function reachableDeclarations(outDir: string): string {
  const seen = new Map<string, string>();
  const pending = entryPoints.map((entry) => join(outDir, entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    const text = readFileSync(file, "utf8");
    seen.set(file, text);
    for (const [, specifier = ""] of text.matchAll(/(?:from |import\()"(\.{1,2}\/[^"]+)"/g)) {
      pending.push(resolve(dirname(file), specifier.replace(/\.[jt]s$/, ".d.ts")));
    }
  }
  return [...seen.keys()]
    .map((file) => relative(outDir, file))
    .sort()
    .map((path) => `// ${path}\n${withoutPrivateMembers(seen.get(join(outDir, path)) ?? "")}`)
    .join("\n");
}

/** A private member's name is in a declaration file, but no user can reach it. */
function withoutPrivateMembers(declarations: string): string {
  return declarations
    .split("\n")
    .filter((line) => !/^\s*(private |#private;)/.test(line))
    .join("\n");
}

if (import.meta.main) {
  const current = await currentApiReport();
  const problem = versionProblem(current, readGolden(), readChangelog());
  if (problem) {
    console.error(`not written: ${problem}`);
    process.exit(1);
  }
  writeGolden(current);
  console.log(`${relative(repoRoot, goldenPath)}: kube-loom@${current.version}`);
}
