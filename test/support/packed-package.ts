// kube-loom as a user's project gets it: `npm pack` of this repository (which compiles dist/npm),
// installed by package name into a new project. Shared by the tests that judge the package.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dir, "../..");
export const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string; devDependencies: Record<string, string> };

/** A tool pinned in this repository's node_modules. */
export const bin = (name: string) => join(repoRoot, "node_modules/.bin", name);

// Every `node` the project's commands start (npm's own included) is the pinned Node 24, not the machine's.
export const projectEnv = { ...process.env, PATH: `${join(repoRoot, "node_modules/node/bin")}${delimiter}${process.env.PATH ?? ""}` };

/** What `bun init` writes into a project's tsconfig.json: the settings a Bun user's code is checked with. */
export const bunInitCompilerOptions = {
  lib: ["ESNext"],
  target: "ESNext",
  module: "Preserve",
  moduleDetection: "force",
  moduleResolution: "bundler",
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
  noEmit: true,
  strict: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  types: ["bun"],
};

/** Runs a command to completion; resolves with its stdout, rejects with all it printed. */
export async function run(command: string[], cwd: string, env: Record<string, string | undefined> = projectEnv): Promise<string> {
  const child = Bun.spawn(command, { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`${command.join(" ")} failed (${code}):\n${stdout}${stderr}`);
  return stdout;
}

/** A new project `my-controllers` under `root` with kube-loom installed from its packed tarball (and @types/bun). */
export async function projectWithPackedKubeLoom(root: string): Promise<string> {
  await run(["npm", "pack", "--pack-destination", root, "--silent"], repoRoot);
  const dir = join(root, "my-controllers");
  mkdirSync(dir);
  const packageJson = {
    name: "my-controllers",
    private: true,
    type: "module",
    dependencies: { "kube-loom": `file:../kube-loom-${manifest.version}.tgz` },
    devDependencies: { "@types/bun": manifest.devDependencies["@types/bun"] },
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson, null, 2));
  await run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], dir);
  return dir;
}
