// The local cluster's failure path; test/integration/local-cluster.test.ts covers a healthy one.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ensureBinaries } from "./binaries.ts";
import { LocalCluster } from "./local-cluster.ts";

test("a component that cannot start fails the start with its name and log file, and nothing is left running", async () => {
  const binaries = { ...(await ensureBinaries({ withLocalCluster: true })), kwok: "/bin/false" };
  const failure = await LocalCluster.start({ binaries }).then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  expect(failure).toMatch(/^kwok failed to start: kwok exited with 1 while waiting for kwok \/healthz; its log: (\S+\/kwok\.log)\n/);
  // The cluster's own folder is removed once everything is stopped.
  const logPath = /its log: (\S+)/.exec(failure ?? "")?.[1] ?? "";
  expect(existsSync(logPath.replace(/\/kwok\.log$/, ""))).toBe(false);
}, 180_000);
