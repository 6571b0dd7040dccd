// The main job's stop path: deploy/local.ts (what deploy/local-up.sh runs once set up) stopped by
// Ctrl-C, which a terminal delivers as SIGINT to every process of its foreground process group.
// kube-loom must go first, releasing its Lease while the API server still answers; the cluster
// stops after it.
import { expect, test } from "bun:test";
import { resolve } from "node:path";
import { dyingWithThisProcess } from "../controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "../controlplane/free-ports.ts";
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

/** Runs `curl` with `args`; its exit code and what it printed. */
async function curl(args: string[]): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(["curl", ...args], { stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, output: stdout + stderr };
}

test("the banner names the ports in effect, the status page and how to reach HTTPS; Ctrl-C stops kube-loom first: it releases its Lease, exits 0, and only then does the cluster stop", async () => {
  // Its own process group, as a shell in a terminal gives a foreground job; ports of its own so that
  // it can run beside a local cluster someone already has up. Flags given twice: the last one wins,
  // in kube-loom and in the banner, whichever of "--flag=value" and "--flag value" is used.
  const ports = await freeLoopbackPorts(["secure", "plain"] as const);
  const args = ["--secure-port=0", `--secure-port=${ports.secure}`, "--port", "0", "--port", String(ports.plain), "--controllers=replicaset"];
  const localUp = Bun.spawn(dyingWithThisProcess(["./node_modules/.bin/bun", "deploy/local.ts", ...args]), {
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
    const banner = stdout();
    expect(banner).toContain("kube-loom is running against a local cluster");

    // What the banner says is there, is there, at the ports the flags gave, not local.ts's defaults.
    expect(banner).not.toMatch(/127\.0\.0\.1:(10257|10251)\b/);
    expect(banner).toContain(`https://127.0.0.1:${ports.secure}/healthz`);
    const statusPage = `http://127.0.0.1:${ports.plain}/debug/status`;
    expect(banner).toContain(statusPage);
    const page = await fetch(statusPage);
    expect({ status: page.status, type: page.headers.get("content-type") }).toMatchObject({ status: 200, type: expect.stringContaining("text/html") });
    expect(banner).toContain(`http://127.0.0.1:${ports.plain}/metrics`);
    // The HTTPS endpoints behind authentication: the banner's curl command gets /metrics as printed.
    const https = banner.match(/curl (-k --cert \S+ --key \S+ https:\/\/127\.0\.0\.1:\d+\/metrics)/);
    expect(https?.[1]).toContain(`https://127.0.0.1:${ports.secure}/metrics`);
    const scraped = await curl(["-sSf", ...(https?.[1] ?? "").split(" ")]);
    expect(scraped.code).toBe(0);
    expect(scraped.output).toContain("leader_election_master_status");

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
