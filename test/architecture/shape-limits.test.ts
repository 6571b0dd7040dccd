// The shape the layer above the informers keeps: no function in the builder or the manager
// longer than a screen (40 lines), and no double cast where the object type should ride on the
// resource (builder, informers, controller core).
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { countCasts, longestFunctions, withOneCompiler } from "./code-shape.ts";

const repoRoot = resolve(import.meta.dir, "../..");
const maxFunctionLines = 40;

describe("shape of pkg/builder, pkg/manager and the controller core", () => {
  test(`no function in pkg/builder or pkg/manager is longer than ${maxFunctionLines} lines`, async () => {
    const tooLong = await withOneCompiler(async () => {
      const spans = [...(await longestFunctions(join(repoRoot, "pkg/builder"))), ...(await longestFunctions(join(repoRoot, "pkg/manager")))];
      return spans.filter((span) => span.lines > maxFunctionLines).map((span) => `${span.name} (${span.file}:${span.line}): ${span.lines} lines`);
    });
    expect(tooLong).toEqual([]);
  }, 60_000);

  test("no `as unknown as` in pkg/builder, pkg/informer or pkg/controller", async () => {
    const counts = await withOneCompiler(() => countCasts(["pkg/builder", "pkg/informer", "pkg/controller"].map((dir) => join(repoRoot, dir))));
    expect(counts.flatMap((count) => count.sites)).toEqual([]);
  }, 60_000);
});
