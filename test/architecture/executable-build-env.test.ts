// The compiled executable must behave the same whoever builds it. Bun's bundler replaces
// `process.env.NODE_ENV` with the value it has while building, and the test kit builds kube-loom
// inside `bun test` (NODE_ENV=test): an executable built there once guarded every projected object
// wherever it ran, and benchmarks that reused the cached build measured that.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../support/kube-loom-binary.ts";

test("the projection guard's default is read when the executable runs, not when it is built", async () => {
  expect(process.env.NODE_ENV).toBe("test");
  const dir = mkdtempSync(join(tmpdir(), "kube-loom-build-env-"));
  try {
    const executable = await compile("test/fixtures/projection-guard/main.ts", join(dir, "projection-guard"));
    const run = (env: Record<string, string>) => Bun.spawnSync([executable], { env: { PATH: process.env.PATH ?? "", ...env } }).stdout.toString().trim();
    expect(run({})).toBe("false");
    expect(run({ NODE_ENV: "test" })).toBe("true");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
