import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assetsCommand } from "./assets-command.ts";

let cacheDir: string;
let savedPath: string | undefined;

beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), "assets-command-"));
  savedPath = process.env.PATH;
});

afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(cacheDir, { recursive: true, force: true });
});

async function runCommand(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await assetsCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** Binaries as a finished build leaves them, so nothing is built. */
function cached(...names: string[]): void {
  mkdirSync(join(cacheDir, "bin"));
  for (const name of names) writeFileSync(join(cacheDir, "bin", name), "");
}

describe("kube-loom-testing-assets", () => {
  test("with the release's binaries cached: prints KUBEBUILDER_ASSETS naming a folder of envtest-named links to them, building nothing", async () => {
    cached("etcd-v3.7.0", "kube-apiserver-v1.36.3");
    process.env.PATH = ""; // no go: a build would fail
    const { code, stdout, stderr } = await runCommand("1.36", "--cache-dir", cacheDir);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const folder = join(cacheDir, "kubebuilder-assets", "v1.36.3");
    expect(stdout).toBe(`KUBEBUILDER_ASSETS=${folder}\n`);
    expect(readlinkSync(join(folder, "etcd"))).toBe(join(cacheDir, "bin", "etcd-v3.7.0"));
    expect(readlinkSync(join(folder, "kube-apiserver"))).toBe(join(cacheDir, "bin", "kube-apiserver-v1.36.3"));
  });

  test("without a VERSION: the newest supported release", async () => {
    cached("etcd-v3.7.0", "kube-apiserver-v1.37.2");
    const { code, stdout } = await runCommand("--cache-dir", cacheDir);
    expect(code).toBe(0);
    expect(stdout).toBe(`KUBEBUILDER_ASSETS=${join(cacheDir, "kubebuilder-assets", "v1.37.2")}\n`);
  });

  test("a binary not cached and no go on PATH: exit 1 saying so, nothing on stdout", async () => {
    cached("etcd-v3.7.0");
    process.env.PATH = "";
    const { code, stdout, stderr } = await runCommand("v1.37.2", "--cache-dir", cacheDir);
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toContain("kube-loom-testing-assets: cannot build kube-apiserver: no 'go' on PATH");
  });

  test.each([
    [["1.99"], "1.99 is not a supported Kubernetes release (expected one of v1.37.2, v1.36.3, v1.35.4"],
    [["1.37", "1.36"], "one VERSION at most, got 1.37 1.36"],
    [["--cache"], "Unknown option '--cache'"],
    [["--cache-dir"], "Option '--cache-dir <value>' argument missing"],
  ])("usage error %p: exit 2, the reason and the usage on stderr", async (args, reason) => {
    const { code, stdout, stderr } = await runCommand(...args);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toStartWith(`kube-loom-testing-assets: ${reason}`);
    expect(stderr).toContain("Usage: kube-loom-testing-assets [VERSION] [--cache-dir DIR]");
  });

  test("--help: the usage on stdout, exit 0", async () => {
    const { code, stdout } = await runCommand("--help");
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: kube-loom-testing-assets [VERSION] [--cache-dir DIR]");
  });
});
