// Figures about the shape of the code, for judging a refactoring by numbers: the longest
// functions of a folder, import cycles between the folders under a root, `as unknown as` casts,
// and how many lines wire each built-in controller to the shared machinery. Sources are read
// with TypeScript's own parser (typescript 7's API, which runs the native compiler as a child
// process; its synchronous client needs Node's internals, the asynchronous one works on Bun).
// Test files (*.test.ts) are never counted.
//   bun test/architecture/code-shape.ts [repository root]    prints the figures as a table
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { API } from "typescript/unstable/async";
import {
  type AsExpression,
  type CallExpression,
  type ClassDeclaration,
  type ExportDeclaration,
  type Identifier,
  type ImportDeclaration,
  type NewExpression,
  type Node,
  type PropertyAccessExpression,
  type SourceFile,
  SyntaxKind,
} from "typescript/unstable/ast";

/** A function, method, constructor, accessor or arrow function, with the lines it spans. */
export interface FunctionSpan {
  /** Relative to the folder that was measured. */
  file: string;
  /** 1-based line of its first token (after any comment or JSDoc above it). */
  line: number;
  /** "Class.method", "functionName", "name" of the variable or property an arrow is assigned to, else "<caller>(…) callback" inside its enclosing function. */
  name: string;
  /** From the line of its first token to the line of its last, both counted. */
  lines: number;
}

/** Folders (relative to the root, "." for the root itself) that import one another in a circle. */
export interface FolderCycle {
  /** Sorted. */
  folders: string[];
  /** Every import between two folders of the cycle, with one file-level example each. */
  edges: { from: string; to: string; example: string }[];
}

export interface CastCount {
  dir: string;
  count: number;
  /** "file:line", relative to `dir`. */
  sites: string[];
}

export interface WiringFigures {
  /** Lines of descriptor.ts. */
  descriptorLines: number;
  /** The statements outside descriptor.ts that add handlers, indexers, queues or runners (see `isWiringCall`). */
  statements: { file: string; line: number; lines: number }[];
  /** descriptorLines plus the lines of those statements. */
  total: number;
}

/** Every non-test TypeScript file under `dir`, sorted. */
export function sourceFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else if (path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts")) {
      found.push(path);
    }
  };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir}: not a folder; expected a folder of TypeScript sources`);
  walk(resolve(dir));
  return found.sort();
}

// The compiler process shared by the measurements inside `withOneCompiler`, and how many of those run.
let shared: { compiler: API; users: number } | undefined;

/**
 * Runs `measure` with one compiler process for all its measurements: each measurement otherwise
 * starts its own and loads the project again (about 1.5 s for this repository).
 */
export async function withOneCompiler<T>(measure: () => Promise<T>): Promise<T> {
  shared ??= { compiler: new API({ cwd: process.cwd() }), users: 0 };
  const session = shared;
  session.users++;
  try {
    return await measure();
  } finally {
    session.users--;
    if (session.users === 0) {
      if (shared === session) shared = undefined;
      await session.compiler.close();
    }
  }
}

/** Parses `files` and hands each syntax tree to `read`. */
async function readSyntax<T>(files: readonly string[], read: (source: SourceFile, file: string) => T): Promise<T[]> {
  if (files.length === 0) return [];
  if (!shared) return withOneCompiler(() => readSyntax(files, read));
  const snapshot = await shared.compiler.updateSnapshot({ openFiles: [...files] });
  const results: T[] = [];
  for (const file of files) {
    const project = await snapshot.getDefaultProjectForFile(file);
    const source = await project?.program.getSourceFile(file);
    if (!source) throw new Error(`the TypeScript compiler did not load ${file}`);
    results.push(read(source, file));
  }
  return results;
}

function visitAll(node: Node, visit: (node: Node) => void): void {
  visit(node);
  node.forEachChild((child) => {
    visitAll(child, visit);
    return undefined;
  });
}

/** 1-based first and last line of `node`, leading comments left out. */
function lineSpan(node: Node, source: SourceFile): { first: number; last: number } {
  const starts = source.getLineStarts();
  const lineOf = (position: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  return { first: lineOf(node.getStart(source)), last: lineOf(Math.max(node.getStart(source), node.end - 1)) };
}

const functionKinds: ReadonlySet<SyntaxKind> = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
]);

/** The text of a name node: identifiers, private names and string or numeric literals. */
function nameText(node: Node | undefined): string | undefined {
  if (!node) return undefined;
  if (node.kind === SyntaxKind.Identifier || node.kind === SyntaxKind.PrivateIdentifier || node.kind === SyntaxKind.StringLiteral || node.kind === SyntaxKind.NumericLiteral) {
    return (node as Identifier).text;
  }
  return undefined;
}

function ownerName(node: Node): string {
  const parent = node.parent;
  if (parent.kind === SyntaxKind.ClassDeclaration || parent.kind === SyntaxKind.ClassExpression) return nameText((parent as ClassDeclaration).name) ?? "<class>";
  return "<object>";
}

/** How a function-like node is called in the figures (see FunctionSpan.name). */
function functionName(node: Node): string {
  const named = (node as Node & { name?: Node }).name;
  switch (node.kind) {
    case SyntaxKind.FunctionDeclaration:
      return nameText(named) ?? "<default export>";
    case SyntaxKind.Constructor:
      return `${ownerName(node)}.constructor`;
    case SyntaxKind.MethodDeclaration:
    case SyntaxKind.GetAccessor:
    case SyntaxKind.SetAccessor:
      return `${ownerName(node)}.${nameText(named) ?? "<computed>"}`;
  }
  const parent = node.parent;
  const assignedTo = nameText((parent as Node & { name?: Node }).name);
  if (parent.kind === SyntaxKind.VariableDeclaration && assignedTo) return assignedTo;
  if (parent.kind === SyntaxKind.PropertyAssignment && assignedTo) return assignedTo;
  if (parent.kind === SyntaxKind.PropertyDeclaration && assignedTo) return `${ownerName(parent)}.${assignedTo}`;
  const enclosing = enclosingFunction(node);
  const where = enclosing ? `${functionName(enclosing)} › ` : "";
  if (parent.kind === SyntaxKind.CallExpression || parent.kind === SyntaxKind.NewExpression) {
    return `${where}${calleeName(parent as CallExpression) ?? "<call>"}(…) callback`;
  }
  return `${where}${nameText(named) ?? "<anonymous>"}`;
}

function enclosingFunction(node: Node): Node | undefined {
  for (let up = node.parent; up && up.kind !== SyntaxKind.SourceFile; up = up.parent) if (functionKinds.has(up.kind)) return up;
  return undefined;
}

/** `f` for `f(…)`, `method` for `x.method(…)`, `Class` for `new Class(…)`. */
function calleeName(call: CallExpression | NewExpression): string | undefined {
  const callee = call.expression;
  if (callee.kind === SyntaxKind.PropertyAccessExpression) return nameText((callee as PropertyAccessExpression).name);
  return nameText(callee);
}

/** Every function-like node with a body in the non-test files under `dir`, longest first. */
export async function longestFunctions(dir: string): Promise<FunctionSpan[]> {
  const root = resolve(dir);
  const perFile = await readSyntax(sourceFilesUnder(root), (source, file) => {
    const spans: FunctionSpan[] = [];
    visitAll(source, (node) => {
      if (!functionKinds.has(node.kind) || !(node as Node & { body?: Node }).body) return;
      const { first, last } = lineSpan(node, source);
      spans.push({ file: relative(root, file), line: first, name: functionName(node), lines: last - first + 1 });
    });
    return spans;
  });
  return perFile.flat().sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

/** The relative module specifiers a file imports or re-exports, each marked type-only or not. */
function importsOf(source: SourceFile): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const add = (specifier: Node | undefined, typeOnly: boolean) => {
    const text = nameText(specifier);
    if (text?.startsWith(".")) found.push({ specifier: text, typeOnly });
  };
  visitAll(source, (node) => {
    if (node.kind === SyntaxKind.ImportDeclaration) {
      const declaration = node as ImportDeclaration;
      const clause = declaration.importClause;
      const bindings = clause?.namedBindings;
      // `import type …`, or `import { type A, type B }` with nothing else.
      const everyNameTypeOnly =
        clause !== undefined &&
        clause.name === undefined &&
        bindings?.kind === SyntaxKind.NamedImports &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly);
      add(declaration.moduleSpecifier, clause?.phaseModifier === SyntaxKind.TypeKeyword || everyNameTypeOnly);
    } else if (node.kind === SyntaxKind.ExportDeclaration) {
      const declaration = node as ExportDeclaration;
      const names = declaration.exportClause;
      const everyNameTypeOnly = names?.kind === SyntaxKind.NamedExports && names.elements.length > 0 && names.elements.every((element) => element.isTypeOnly);
      add(declaration.moduleSpecifier, declaration.isTypeOnly || everyNameTypeOnly);
    } else if (node.kind === SyntaxKind.CallExpression && (node as CallExpression).expression.kind === SyntaxKind.ImportKeyword) {
      add((node as CallExpression).arguments[0], false);
    }
  });
  return found;
}

/**
 * Import cycles between the folders under `rootDir` (each file belongs to the folder it sits in):
 * one entry per strongly connected group of two or more folders. With `typeOnly: false`,
 * imports that only bring in types (which vanish at run time) are left out.
 */
export async function folderCycles(rootDir: string, options: { typeOnly?: boolean } = {}): Promise<FolderCycle[]> {
  const root = resolve(rootDir);
  const withTypes = options.typeOnly ?? true;
  const folderOf = (file: string) => relative(root, dirname(file)) || ".";
  const edges = new Map<string, Map<string, string>>();
  const perFile = await readSyntax(sourceFilesUnder(root), (source, file) => ({ file, imports: importsOf(source) }));
  for (const { file, imports } of perFile) {
    for (const { specifier, typeOnly } of imports) {
      if (typeOnly && !withTypes) continue;
      const target = resolve(dirname(file), specifier);
      if (relative(root, target).startsWith("..")) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from === to) continue;
      const targets = edges.get(from) ?? new Map<string, string>();
      if (!targets.has(to)) targets.set(to, `${relative(root, file)} → ${relative(root, target)}`);
      edges.set(from, targets);
    }
  }
  return stronglyConnected(edges)
    .filter((group) => group.length > 1)
    .map((group) => {
      const members = new Set(group);
      const inside = group.flatMap((from) =>
        [...(edges.get(from) ?? [])].filter(([to]) => members.has(to)).map(([to, example]) => ({ from, to, example })),
      );
      return { folders: [...group].sort(), edges: inside.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)) };
    })
    .sort((a, b) => a.folders.join().localeCompare(b.folders.join()));
}

/** Tarjan's algorithm: the strongly connected groups of a directed graph. */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((targets) => [...targets.keys()])]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    groups.push(group);
  };
  for (const node of [...nodes].sort()) if (!index.has(node)) visit(node);
  return groups;
}

function isDoubleCast(node: Node): boolean {
  if (node.kind !== SyntaxKind.AsExpression) return false;
  let inner: Node = (node as AsExpression).expression;
  while (inner.kind === SyntaxKind.ParenthesizedExpression) inner = (inner as AsExpression).expression;
  return inner.kind === SyntaxKind.AsExpression && (inner as AsExpression).type.kind === SyntaxKind.UnknownKeyword;
}

/** `x as unknown as T` casts in the non-test files under each of `dirs`. */
export async function countCasts(dirs: readonly string[]): Promise<CastCount[]> {
  const counts: CastCount[] = [];
  for (const dir of dirs) {
    const root = resolve(dir);
    const perFile = await readSyntax(sourceFilesUnder(root), (source, file) => {
      const sites: string[] = [];
      visitAll(source, (node) => {
        if (isDoubleCast(node)) sites.push(`${relative(root, file)}:${lineSpan(node, source).first}`);
      });
      return sites;
    });
    const sites = perFile.flat();
    counts.push({ dir, count: sites.length, sites });
  }
  return counts;
}

// Calls that connect a controller to the shared machinery: informers and their handlers and
// indexes, workqueues, reconcile runners, and local helpers named for what they make.
const wiringCalls: ReadonlySet<string> = new Set(["addEventHandler", "addIndexers", "addIndexOnce", "forResource", "forMetadata", "informer", "watch", "queue", "runner"]);

function isWiringCall(node: Node): boolean {
  if (node.kind === SyntaxKind.NewExpression) return /(Queue|Runner)$/.test(calleeName(node as NewExpression) ?? "");
  return node.kind === SyntaxKind.CallExpression && wiringCalls.has(calleeName(node as CallExpression) ?? "");
}

/** The statement (or class field) `node` belongs to. */
function enclosingStatement(node: Node): Node | undefined {
  for (let up: Node | undefined = node; up && up.kind !== SyntaxKind.SourceFile; up = up.parent) {
    if (up.kind === SyntaxKind.PropertyDeclaration || (up.kind >= SyntaxKind.FirstStatement && up.kind <= SyntaxKind.LastStatement)) return up;
  }
  return undefined;
}

/**
 * Wiring of the controller in `controllerDir`: the lines of its descriptor.ts, plus the lines of
 * each statement elsewhere in the folder that makes one of the calls `isWiringCall` recognises.
 */
export async function wiringLines(controllerDir: string): Promise<WiringFigures> {
  const root = resolve(controllerDir);
  const descriptor = join(root, "descriptor.ts");
  if (!existsSync(descriptor)) throw new Error(`${controllerDir}: no descriptor.ts; expected a controller's folder`);
  const descriptorLines = readFileSync(descriptor, "utf8").replace(/\n$/, "").split("\n").length;
  const others = sourceFilesUnder(root).filter((file) => file !== descriptor);
  const perFile = await readSyntax(others, (source, file) => {
    const statements = new Set<Node>();
    visitAll(source, (node) => {
      const statement = isWiringCall(node) ? enclosingStatement(node) : undefined;
      if (statement) statements.add(statement);
    });
    return [...statements].map((statement) => {
      const { first, last } = lineSpan(statement, source);
      return { file: relative(root, file), line: first, lines: last - first + 1 };
    });
  });
  // A statement nested in another counted one (a handler added inside a counted helper) is counted once.
  const statements = perFile.flat().filter((s, _, all) => !all.some((o) => o !== s && o.file === s.file && o.line <= s.line && o.line + o.lines >= s.line + s.lines && o.lines > s.lines));
  return { descriptorLines, statements, total: descriptorLines + statements.reduce((sum, s) => sum + s.lines, 0) };
}

async function printFigures(repoRoot: string): Promise<void> {
  const at = (path: string) => join(repoRoot, path);
  const rows: [string, string][] = [];
  for (const dir of ["pkg/builder", "pkg/manager"]) {
    const [longest] = await longestFunctions(at(dir));
    rows.push([`longest function in ${dir}`, longest ? `${longest.lines} lines: ${longest.name} (${dir}/${longest.file}:${longest.line})` : "none"]);
  }
  for (const typeOnly of [true, false]) {
    const cycles = await folderCycles(at("pkg"), { typeOnly });
    const what = `folder cycles in pkg/ (${typeOnly ? "all imports" : "without type-only imports"})`;
    rows.push([what, cycles.length === 0 ? "none" : cycles.map((cycle) => cycle.folders.join(", ")).join("; ")]);
    for (const cycle of cycles) {
      const twoWay = cycle.edges.filter((edge) => edge.from < edge.to && cycle.edges.some((back) => back.from === edge.to && back.to === edge.from));
      if (twoWay.length > 0) rows.push(["  of which import each other", twoWay.map((edge) => `${edge.from} ⇄ ${edge.to}`).join(", ")]);
    }
  }
  const casts = await countCasts(["pkg/builder", "pkg/informer", "pkg/controller", "pkg"].map(at));
  for (const { dir, count } of casts) rows.push([`"as unknown as" in ${relative(repoRoot, dir)}`, String(count)]);
  const controllersDir = at("controllers");
  for (const name of readdirSync(controllersDir).filter((entry) => statSync(join(controllersDir, entry)).isDirectory()).sort()) {
    const wiring = await wiringLines(join(controllersDir, name));
    const rest = wiring.statements.reduce((sum, s) => sum + s.lines, 0);
    rows.push([`wiring lines of controllers/${name}`, `${wiring.total} (descriptor.ts ${wiring.descriptorLines} + ${rest} in ${wiring.statements.length} statements)`]);
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
}

if (import.meta.main) await withOneCompiler(() => printFigures(resolve(process.argv[2] ?? join(import.meta.dir, "../.."))));
