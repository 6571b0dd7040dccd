// The layering the tree promises, checked on every run: production code has no import cycles,
// the folders of pkg/ (the reusable machinery) import one another only down the layers below
// and so in no cycle either, a folder's internal/ is imported only from within that folder, pkg/
// never reaches into controllers/, and nothing shipped imports from test/.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const repoRoot = resolve(import.meta.dir, "../..");
const shipped = ["mod.ts", "cmd", "controllers", "pkg"];

/**
 * The folders of pkg/ from the bottom up; pkg/version.ts counts as a folder of its own. A folder
 * imports only folders of lower layers, never one of its own layer, so a new folder must be
 * placed here before anything imports it. Leaves hold what many layers share: interfaces (health, debug)
 * and stand-ins (noop). The tls tables sit on version.ts, since the runtime's version decides which
 * key-exchange groups it honours. What a layer reports, it reports to an interface it owns
 * (a metrics provider, an observer); pkg/metrics and pkg/status implement those from above.
 * The builder makes the manager's controller descriptors, so it sits on top of the manager;
 * kube-loom/testing runs descriptors as the manager would, on top of everything.
 */
const pkgLayers: readonly (readonly string[])[] = [
  ["errors", "clock", "collections", "debug", "eventloop", "health", "labels", "noop", "runtime", "sharding", "version.ts"],
  ["log", "tls"],
  ["flowcontrol"],
  ["kube"],
  ["workqueue", "informer", "events", "leaderelection", "shardelection"],
  ["controller"],
  ["options"],
  ["metrics", "status", "server"],
  ["endpoints"],
  ["manager"],
  ["builder"],
  ["testing"],
];

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

/** The folder of pkg/ a repo-relative file belongs to (pkg/version.ts is its own), or undefined outside pkg/. */
function pkgFolderOf(file: string): string | undefined {
  const [top, folder] = file.split("/");
  return top === "pkg" ? folder : undefined;
}

interface FolderImport {
  from: string;
  to: string;
  /** One file-level import that makes it, "file → target". */
  example: string;
}

/** Every import from one pkg/ folder into another, once per pair of folders. */
function folderImports(graph: Map<string, string[]>): FolderImport[] {
  const found = new Map<string, FolderImport>();
  for (const [file, targets] of graph) {
    const from = pkgFolderOf(file);
    for (const target of targets) {
      const to = pkgFolderOf(target);
      if (from === undefined || to === undefined || from === to || found.has(`${from} ${to}`)) continue;
      found.set(`${from} ${to}`, { from, to, example: `${file} → ${target}` });
    }
  }
  return [...found.values()];
}

/** The folder graph, folder → the folders it imports. */
function folderGraph(imports: readonly FolderImport[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { from, to } of imports) graph.set(from, [...(graph.get(from) ?? []), to]);
  return graph;
}

/** The imports that do not go down the layers: "from → to (example)", and a line for each folder the layers lack. */
function layeringViolations(imports: readonly FolderImport[], layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((layer, index) => layer.map((folder) => [folder, index] as const)));
  const unplaced = new Set(imports.flatMap(({ from, to }) => [from, to]).filter((folder) => !rank.has(folder)));
  return [
    ...[...unplaced].sort().map((folder) => `pkg/${folder} has no place in the layers`),
    ...imports
      .filter(({ from, to }) => rank.has(from) && rank.has(to) && (rank.get(from) ?? 0) <= (rank.get(to) ?? 0))
      .map(({ from, to, example }) => `${from} → ${to} does not go down the layers (${example})`),
  ];
}

/** Imports of an `internal/` folder from outside the folder that holds it, as "file → target". */
function internalImportsFromOutside(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const at = target.lastIndexOf("/internal/");
        return at >= 0 && !file.startsWith(`${target.slice(0, at)}/`);
      })
      .map((target) => `${file} → ${target}`),
  );
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

  test("the folder cycle finder finds a cycle between folders whose files make none", () => {
    const files = new Map([
      ["pkg/a/one.ts", ["pkg/b/two.ts"]],
      ["pkg/b/two.ts", ["pkg/c/three.ts"]],
      ["pkg/c/four.ts", ["pkg/a/five.ts"]],
      ["pkg/c/three.ts", ["pkg/d/six.ts", "pkg/version.ts"]],
      ["pkg/a/five.ts", []],
    ]);
    expect(cycles(files)).toEqual([]);
    const imports = folderImports(files);
    expect(cycles(folderGraph(imports))).toEqual([["a", "b", "c", "a"]]);
    expect(imports.find(({ from, to }) => from === "c" && to === "a")?.example).toBe("pkg/c/four.ts → pkg/a/five.ts");
  });

  test("the layering check names each import that goes up or sideways, and each folder without a place", () => {
    const files = new Map([
      ["pkg/top/a.ts", ["pkg/low/b.ts", "pkg/new/c.ts"]],
      ["pkg/low/b.ts", ["pkg/top/a.ts", "pkg/peer/d.ts"]],
    ]);
    expect(layeringViolations(folderImports(files), [["low", "peer"], ["top"]])).toEqual([
      "pkg/new has no place in the layers",
      "low → top does not go down the layers (pkg/low/b.ts → pkg/top/a.ts)",
      "low → peer does not go down the layers (pkg/low/b.ts → pkg/peer/d.ts)",
    ]);
  });

  test("every folder of pkg/ has one place in the layers, and every place a folder", () => {
    const folders = new Set([...graph.keys()].map(pkgFolderOf).filter((folder) => folder !== undefined));
    const placed = pkgLayers.flat();
    expect(placed.length).toBe(new Set(placed).size);
    expect([...placed].sort()).toEqual([...folders].sort());
  });

  test("the folders of pkg/ import one another in no cycle", () => {
    const imports = folderImports(graph);
    const example = (from: string, to: string) => imports.find((i) => i.from === from && i.to === to)?.example;
    const described = cycles(folderGraph(imports)).map((cycle) =>
      cycle
        .slice(1)
        .map((to, i) => `${cycle[i]} → ${to} (${example(cycle[i] ?? "", to)})`)
        .join(", "),
    );
    expect(described).toEqual([]);
  });

  test("every import between the folders of pkg/ goes down the layers", () => {
    expect(layeringViolations(folderImports(graph), pkgLayers)).toEqual([]);
  });

  test("the internal-import check names an import of internal/ from outside its folder", () => {
    const files = new Map([
      ["pkg/a/one.ts", ["pkg/a/internal/two.ts"]],
      ["pkg/a/internal/two.ts", ["pkg/a/three.ts"]],
      ["pkg/b/four.ts", ["pkg/a/internal/two.ts"]],
      ["mod.ts", ["pkg/a/internal/two.ts"]],
    ]);
    expect(internalImportsFromOutside(files)).toEqual(["pkg/b/four.ts → pkg/a/internal/two.ts", "mod.ts → pkg/a/internal/two.ts"]);
  });

  test("an internal/ folder is imported only from the folder that holds it, so the package entries never export it", () => {
    expect(internalImportsFromOutside(graph)).toEqual([]);
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
