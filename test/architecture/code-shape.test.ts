// The code-shape measurements on small made-up folders whose answers are known.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { countCasts, folderCycles, longestFunctions, wiringLines } from "./code-shape.ts";

const root = mkdtempSync(join(tmpdir(), "kube-loom-code-shape-"));

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes `files` (path → text) under a fresh folder; returns the folder. */
function tree(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("longestFunctions", () => {
  test("measures each function from its first line to its last, comments above it left out, longest first", async () => {
    const dir = tree("functions", {
      "five.ts": [
        "/** Five lines, this comment not counted. */",
        "export function fiveLines(a: number): number {",
        "  const b = a + 1;",
        "  const c = b * 2;",
        "  return c;",
        "}",
        "export const short = (x: number) => x + 1;",
        "",
      ].join("\n"),
      "widget.ts": ["export class Widget {", "  size(): number {", "    return 1;", "  }", "}", ""].join("\n"),
      "five.test.ts": ["export function notCounted() {", ...new Array<string>(20).fill("  void 0;"), "}", ""].join("\n"),
    });
    expect(await longestFunctions(dir)).toEqual([
      { file: "five.ts", line: 2, name: "fiveLines", lines: 5 },
      { file: "widget.ts", line: 2, name: "Widget.size", lines: 3 },
      { file: "five.ts", line: 7, name: "short", lines: 1 },
    ]);
  });

  test("names a callback after the call it is passed to, inside its enclosing function", async () => {
    const dir = tree("callbacks", { "run.ts": "export function run(items: number[]) {\n  return items.map((item) => item * 2);\n}\n" });
    expect((await longestFunctions(dir)).map((span) => span.name)).toEqual(["run", "run › map(…) callback"]);
  });
});

describe("folderCycles", () => {
  const dir = tree("cycles", {
    "a/one.ts": 'import type { Two } from "../b/two.ts";\nexport type One = { two?: Two };\n',
    "b/two.ts": 'import { three } from "../c/three.ts";\nexport type Two = { three: typeof three };\n',
    "c/three.ts": 'export { type One } from "../a/one.ts";\nexport const three = 3;\n',
    "d/four.ts": 'import { three } from "../c/three.ts";\nexport const four = three + 1;\n',
    "d/four.test.ts": 'import { four } from "./four.ts";\nimport "../a/one.ts";\nvoid four;\n',
  });

  test("finds the folders that import one another in a circle, with an example of each import", async () => {
    expect(await folderCycles(dir)).toEqual([
      {
        folders: ["a", "b", "c"],
        edges: [
          { from: "a", to: "b", example: "a/one.ts → b/two.ts" },
          { from: "b", to: "c", example: "b/two.ts → c/three.ts" },
          { from: "c", to: "a", example: "c/three.ts → a/one.ts" },
        ],
      },
    ]);
  });

  test("without type-only imports, that circle is gone", async () => {
    expect(await folderCycles(dir, { typeOnly: false })).toEqual([]);
  });
});

test("countCasts counts `as unknown as` outside test files, per folder", async () => {
  const dir = tree("casts", {
    "cast.ts": "const a = 1 as unknown as string;\nconst b = (2 as unknown) as string;\nconst c = 3 as number;\nexport { a, b, c };\n",
    "cast.test.ts": "export const d = 4 as unknown as string;\n",
  });
  expect(await countCasts([dir])).toEqual([{ dir, count: 2, sites: ["cast.ts:1", "cast.ts:2"] }]);
});

test("wiringLines adds descriptor.ts to the statements that add handlers, indexers, queues and runners", async () => {
  const dir = tree("controller", {
    "descriptor.ts": "export const descriptor = {\n  name: 'sample',\n};\n",
    "sample.ts": [
      "declare const informer: { addEventHandler(handler: object): void; addIndexers(indexers: object): void };",
      "declare class RateLimitingQueue { constructor(name: string) }",
      "export class Sample {",
      "  constructor() {",
      "    informer.addEventHandler({",
      "      add: () => undefined,",
      "    });",
      "    informer.addIndexers({ byName: () => [] });",
      "    const queue = new RateLimitingQueue('sample');",
      "    void queue;",
      "  }",
      "}",
      "",
    ].join("\n"),
  });
  expect(await wiringLines(dir)).toEqual({
    descriptorLines: 3,
    statements: [
      { file: "sample.ts", line: 5, lines: 3 },
      { file: "sample.ts", line: 8, lines: 1 },
      { file: "sample.ts", line: 9, lines: 1 },
    ],
    total: 8,
  });
});

test("a folder that is not there is one line naming it", async () => {
  const missing = join(root, "no-such-folder");
  await expect(longestFunctions(missing)).rejects.toThrow(`${missing}: not a folder; expected a folder of TypeScript sources`);
  await expect(wiringLines(tree("not-a-controller", { "x.ts": "export {};\n" }))).rejects.toThrow("no descriptor.ts; expected a controller's folder");
});
