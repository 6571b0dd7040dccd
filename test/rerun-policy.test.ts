import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { knownFlakyFiles } from "./known-flaky.ts";
import { type JobOutcome, judgeRun } from "./rerun-policy.ts";

const ok = (name: string): JobOutcome => ({ name, files: [name], passed: 3, failed: 0, passedOnRerun: false });
const rerun = (name: string, files = [name]): JobOutcome => ({ name, files, passed: 3, failed: 0, passedOnRerun: true });
const known = [{ file: "test/a.test.ts", reason: "a watch timeout races the API server's restart" }];

describe("judgeRun", () => {
  test("a run where every file passed the first time passes, and its summary is the counts alone", () => {
    expect(judgeRun([ok("test/a.test.ts"), ok("test/b.test.ts")], known)).toEqual({ passes: true, reruns: [], summary: "6 passed, 0 failed" });
  });

  test("a file that failed its rerun too fails the run, listed or not", () => {
    const broken = { ...ok("test/a.test.ts"), passed: 2, failed: 1 };
    expect(judgeRun([broken], known)).toMatchObject({ passes: false, summary: "2 passed, 1 failed" });
  });

  test("a file on the known-flaky list may pass on its rerun; the summary still names it", () => {
    const verdict = judgeRun([rerun("test/a.test.ts"), ok("test/b.test.ts")], known);
    expect(verdict.passes).toBe(true);
    expect(verdict.reruns).toEqual([{ name: "test/a.test.ts", knownFlakyReason: "a watch timeout races the API server's restart" }]);
    expect(verdict.summary).toBe("6 passed, 0 failed; 1 passed only when rerun: test/a.test.ts (known flaky)");
  });

  test("a file not on the list that needed a rerun fails the run, named in the summary", () => {
    const verdict = judgeRun([rerun("test/a.test.ts"), rerun("test/b.test.ts")], known);
    expect(verdict.passes).toBe(false);
    expect(verdict.summary).toBe(
      "6 passed, 0 failed; 2 passed only when rerun: test/a.test.ts (known flaky), test/b.test.ts (not known-flaky); failing the run: 1 rerun not listed in test/known-flaky.ts",
    );
  });

  test("a skew job is judged by its file", () => {
    expect(judgeRun([rerun("test/a.test.ts against 1.35", ["test/a.test.ts"])], known).passes).toBe(true);
  });
});

describe("the known-flaky list", () => {
  const repoRoot = resolve(import.meta.dir, "..");

  test("names existing test files, each once, each with a reason", () => {
    const files = knownFlakyFiles.map((entry) => entry.file);
    expect(files.filter((file) => !file.endsWith(".test.ts") || !existsSync(join(repoRoot, file)))).toEqual([]);
    expect(new Set(files).size).toBe(files.length);
    expect(knownFlakyFiles.filter((entry) => entry.reason.trim().length < 20)).toEqual([]);
  });
});
