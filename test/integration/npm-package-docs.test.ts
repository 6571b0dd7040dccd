// The docs as a user reads them from node_modules: the packed package ships README.md, docs/ and
// the examples its links name, and its kube-loom-testing-assets command works as documented
// (over binaries this repository already built: a build takes minutes). Every ```ts block of README.md and docs/*.md type-checks
// against the package's declarations under the strictest settings a project may use. A block
// marked ```ts fragment (a signature, not a program) is skipped. Each block is its own module;
// they sit beside the configmap-mirror example's controller, which the testing block imports.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createOwnedTempDir, removeOwnedTempDir } from "../controlplane/owned-temp-dir.ts";
import { bin, bunInitCompilerOptions, projectEnv, projectWithPackedKubeLoom, repoRoot, run } from "../support/packed-package.ts";
import { codeBlocks } from "../support/markdown-code-blocks.ts";

const strictest = {
  compilerOptions: { ...bunInitCompilerOptions, exactOptionalPropertyTypes: true },
  include: ["blocks"],
};

let workDir: string;
let project: string;
let shipped: string;

beforeAll(async () => {
  workDir = createOwnedTempDir();
  project = await projectWithPackedKubeLoom(workDir);
  shipped = join(project, "node_modules/kube-loom");
}, 300_000);

afterAll(() => {
  if (workDir) removeOwnedTempDir(workDir);
});

/** README.md and docs/*.md as the package ships them. */
function shippedDocs(): string[] {
  const docs = readdirSync(join(shipped, "docs")).filter((name) => name.endsWith(".md")).map((name) => join("docs", name));
  return ["README.md", ...docs];
}

describe("the docs in the npm package", () => {
  test("every relative link of README.md and docs/*.md names a file or folder the package has", () => {
    const dead: string[] = [];
    for (const doc of shippedDocs()) {
      const text = readFileSync(join(shipped, doc), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(shipped, dirname(doc), target))) dead.push(`${doc}: ${target}`);
      }
    }
    // bench/ is the repository's, not the library's: the link says so by leading to the source.
    expect(dead.filter((link) => !link.includes("bench/"))).toEqual([]);
  });

  test("every ```ts block type-checks against the package with strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess", async () => {
    const blocksDir = join(project, "blocks");
    mkdirSync(blocksDir);
    copyFileSync(join(shipped, "examples/configmap-mirror/controller.ts"), join(blocksDir, "controller.ts"));
    let written = 0;
    for (const doc of shippedDocs()) {
      for (const block of codeBlocks(readFileSync(join(shipped, doc), "utf8"), "ts")) {
        if (block.info.includes("fragment")) continue;
        writeFileSync(join(blocksDir, `${doc.replaceAll("/", "-")}-line-${block.line}.ts`), block.code);
        written++;
      }
    }
    expect(written).toBeGreaterThan(5);
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(strictest, null, 2));
    expect(await run([bin("tsc"), "-p", "tsconfig.json"], project).catch((err: Error) => err.message)).toBe("");
  }, 120_000);

  test("`npx kube-loom-testing-assets 1.37` prints KUBEBUILDER_ASSETS naming a folder with a runnable kube-apiserver of that release", async () => {
    const cacheDir = join(workDir, "assets-cache");
    mkdirSync(join(cacheDir, "bin"), { recursive: true });
    for (const name of ["etcd-v3.7.0", "kube-apiserver-v1.37.2"]) symlinkSync(join(repoRoot, ".cache/bin", name), join(cacheDir, "bin", name));
    const line = await run(["npx", "--no-install", "kube-loom-testing-assets", "1.37", "--cache-dir", cacheDir], project);
    expect(line).toBe(`KUBEBUILDER_ASSETS=${join(cacheDir, "kubebuilder-assets/v1.37.2")}\n`);
    const assets = line.trim().slice("KUBEBUILDER_ASSETS=".length);
    expect(await run([join(assets, "kube-apiserver"), "--version"], project, projectEnv)).toContain("Kubernetes v1.37.2");
    expect(await run([join(assets, "etcd"), "--version"], project, projectEnv)).toContain("etcd Version: 3.7.0");
  }, 60_000);
});
