// The build cache key must change whenever code a compiled entry runs changes, or tests run a
// stale executable.
import { expect, test } from "bun:test";
import { sourceFiles } from "./kube-loom-binary.ts";

test("the build cache key covers every source an executable is built from", async () => {
  const files = await sourceFiles();
  expect(files).toEqual(
    expect.arrayContaining([
      "mod.ts",
      "package.json",
      "package-lock.json",
      "cmd/kube-loom/main.ts",
      "pkg/kube/transport.ts",
      "controllers/replicaset/replicaset-controller.ts",
      "test/fixtures/leader-probe/main.ts",
    ]),
  );
});
