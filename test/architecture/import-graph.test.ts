// The layering the tree promises, checked on every run: production code has no import cycles,
// pkg/ (the reusable machinery) never reaches into controllers/, and nothing shipped imports
// from test/.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "../..");
const shipped = ["mod.ts", "cmd", "controllers", "pkg"];

function sourceFiles(path: string): string[] {
  if (statSync(path).isFile()) return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  return readdirSync(path).flatMap((entry) => sourceFiles(join(path, entry)));
}

/** file (repo-relative) → the repo-relative files it imports (relative specifiers only; type-only imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const specifier = /(?:import|export)\s[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const file of shipped.flatMap((entry) => sourceFiles(join(repoRoot, entry)))) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(specifier)].map((match) => relative(repoRoot, resolve(dirname(file), match[1] ?? match[2] ?? "")));
    graph.set(relative(repoRoot, file), targets);
  }
  return graph;
}

/** One cycle per strongly connected group, as a path of files; empty when there are none. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "visiting");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "visiting") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("import graph of the shipped code", () => {
  const graph = importGraph();

  test("is read from enough files to mean something", () => {
    expect(graph.size).toBeGreaterThan(100);
  });

  test("the cycle finder finds a cycle when there is one", () => {
    const sample = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
    expect(cycles(sample)).toEqual([["a", "b", "c", "a"]]);
  });

  test("has no cycles", () => {
    expect(cycles(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  test("pkg/ never imports controllers/, and shipped code never imports test/", () => {
    const violations = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => target.startsWith("test/") || (file.startsWith("pkg/") && target.startsWith("controllers/")))
        .map((target) => `${file} → ${target}`),
    );
    expect(violations).toEqual([]);
  });
});
