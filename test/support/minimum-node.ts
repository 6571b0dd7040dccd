// The oldest Node kube-loom claims to run on (package.json's engines.node), for the tests that
// run the packed package on it beside the pinned Node 24. It comes from the npm registry as the
// `node` package at that exact version, installed once into .cache/node-v<version>.
//   bun test/support/minimum-node.ts   (prints the binary's path, installing it if needed)
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "../..");
const engines = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } }).engines;

/** "22.19.0", from engines.node ">=22.19.0". */
export const minimumNodeVersion = /^>=(\d+\.\d+\.\d+)$/.exec(engines.node)?.[1] ?? "";
if (!minimumNodeVersion) throw new Error(`package.json engines.node is ${engines.node}: expected ">=x.y.z"`);

/** Installs that Node if it is not in the cache yet; resolves with the path of its binary. */
export async function minimumNode(): Promise<string> {
  const prefix = join(repoRoot, ".cache", `node-v${minimumNodeVersion}`);
  const binary = join(prefix, "node_modules/node/bin/node");
  if (existsSync(binary)) return binary;
  mkdirSync(prefix, { recursive: true });
  const npm = Bun.spawn(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", `node@${minimumNodeVersion}`], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, output] = await Promise.all([npm.exited, new Response(npm.stderr).text()]);
  if (code !== 0 || !existsSync(binary)) throw new Error(`installing node@${minimumNodeVersion} into ${prefix} failed (${code}):\n${output}`);
  return binary;
}

if (import.meta.main) console.log(await minimumNode());
