import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "bun:test";
import { countLoggedErrors, findStackTraces } from "./replica-logs.ts";

const dir = mkdtempSync(join(tmpdir(), "replica-logs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const log = join(dir, "kube-loom-a.log");
writeFileSync(
  log,
  [
    '{"level":40,"err":{"type":"DecodeError","message":"GET /api/v1/pods?watch=true: watch event is not JSON"},"msg":"list/watch failed; retrying"}',
    '{"level":50,"err":{"type":"TypeError","message":"x is undefined","stack":"TypeError: x is undefined\\n    at f (a.ts:1:2)"},"msg":"sync failed"}',
    "error: boom",
    "    at run (/src/pkg/a.ts:10:5)",
    "    at main (/src/pkg/b.ts:3:1)",
    '{"level":40,"err":{"type":"DecodeError","message":"corrupt frame"},"msg":"list/watch failed; retrying"}',
  ].join("\n"),
);

test("a JSON line with a stack and each printed stack (by its first frame) are stack traces; one-line errors are not", () => {
  expect(findStackTraces([log]).map((found) => found.line)).toEqual([2, 4]);
});

test("errors logged are counted by type", () => {
  expect([...countLoggedErrors([log])]).toEqual([
    ["DecodeError", 2],
    ["TypeError", 1],
  ]);
});
