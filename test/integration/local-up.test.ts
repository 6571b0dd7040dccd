// The main job's stop path: deploy/local.ts (what deploy/local-up.sh runs once set up) stopped by
// Ctrl-C, which a terminal delivers as SIGINT to every process of its foreground process group.
// kube-loom must go first, releasing its Lease while the API server still answers; the cluster
// stops after it.
import { expect, test } from "bun:test";
import { resolve } from "node:path";
import { dyingWithThisProcess } from "../controlplane/daemon-process.ts";
import { waitUntil } from "../support/eventually.ts";

const repoRoot = resolve(import.meta.dir, "../..");

/** Everything a stream has said so far, read as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })();
  return () => text;
}

test("Ctrl-C stops kube-loom first: it releases its Lease, exits 0, and only then does the cluster stop", async () => {
  // Its own process group, as a shell in a terminal gives a foreground job; ports 0 so that it can
  // run beside a local cluster someone already has up.
  const localUp = Bun.spawn(dyingWithThisProcess(["./node_modules/.bin/bun", "deploy/local.ts", "--secure-port=0", "--port=0", "--controllers=replicaset"]), {
    cwd: repoRoot,
    detached: true,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = collect(localUp.stdout);
  const stderr = collect(localUp.stderr);
  try {
    await waitUntil(() => localUp.exitCode !== null || stderr().includes("became leader"), "kube-loom leading on the local cluster", 540_000, 500);
    expect(localUp.exitCode).toBeNull();
    expect(stdout()).toContain("kube-loom is running against a local cluster");

    process.kill(-localUp.pid, "SIGINT"); // what Ctrl-C does: the whole foreground process group
    expect(await localUp.exited).toBe(0);
    const log = stderr();
    expect(log).toContain("released lease");
    expect(log).not.toContain("failed to release lock");
    // The cluster is stopped once kube-loom has exited, not with it.
    expect(log.indexOf("kube-loom exited (0); stopping the local cluster")).toBeGreaterThan(log.indexOf("released lease"));
  } finally {
    if (localUp.exitCode === null) process.kill(-localUp.pid, "SIGKILL");
  }
}, 600_000);
