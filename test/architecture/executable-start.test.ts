// What the compiled executable evaluates at start. Bun's bundler keeps the classes of a module
// reached only through import() in the one file it writes, so without --splitting every process
// creates client-node's ~10,000 functions (its generated models and API classes), about 6 MiB
// resident, though only typed clients and exec plugins use them. With --splitting they are a
// chunk of their own, loaded on the first use: this holds as long as nothing on the start path
// imports client-node's values (types are erased).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "../..");

test("package.json's build splits the executable into chunks", () => {
  const build = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
  expect(build.split(/\s+/)).toContain("--splitting");
});

test("nothing the executable loads at start is from @kubernetes/client-node", async () => {
  const result = await Bun.build({ entrypoints: [join(repoRoot, "cmd/kube-loom/main.ts")], target: "bun", format: "esm", splitting: true, metafile: true });
  expect(result.success).toBe(true);
  const outputs = result.metafile?.outputs ?? {};
  const entry = Object.keys(outputs).find((name) => outputs[name]?.entryPoint?.endsWith("cmd/kube-loom/main.ts"));
  expect(entry).toBeDefined();
  // The entry chunk and what it imports statically, transitively; import() targets load later.
  const atStart = new Set<string>();
  const visit = (name: string) => {
    if (atStart.has(name)) return;
    atStart.add(name);
    for (const imported of outputs[name]?.imports ?? []) if (imported.kind === "import-statement") visit(imported.path);
  };
  visit(entry ?? "");
  const inputs = [...atStart].flatMap((name) => Object.keys(outputs[name]?.inputs ?? {}));
  expect(inputs.filter((input) => input.includes("node_modules/@kubernetes/client-node/"))).toEqual([]);
  // The check sees the modules: the start chunk holds kube-loom's own.
  expect(inputs).toContain("pkg/manager/run-command.ts");
});
