// The compiled single executable, as an operator meets it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { runtimeSettings } from "../../pkg/runtime/runtime-settings.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";

// A ServiceAccount with every right, for a kubeconfig whose exec plugin hands out its token.
const execPluginUser = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: exec-plugin-user, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: exec-plugin-user }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
subjects:
- { kind: ServiceAccount, name: exec-plugin-user, namespace: kube-system }
`;

let controlPlane: ControlPlane;
let binary: string;

beforeAll(async () => {
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
}, 300_000);

afterAll(async () => {
  await controlPlane?.stop();
});

async function runBinary(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([binary, ...args], { stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

describe("kube-loom single executable", () => {
  test("starts against the control plane and answers /healthz with 200 ok, as the process it was started as, under its runtime settings", async () => {
    const kubeLoom = await KubeLoomProcess.start({ binary, kubeconfig: controlPlane.kubeconfigPath, logDir: controlPlane.dir });
    try {
      await kubeLoom.waitFor("/healthz");
      const response = await fetch(`${kubeLoom.url}/healthz`);
      expect(await response.text()).toBe("ok");
      // It replaced itself (execve keeps the pid) to run with the settings pkg/runtime sets.
      const environment = readFileSync(`/proc/${kubeLoom.pid}/environ`, "utf8").split("\0");
      for (const [name, value] of Object.entries(runtimeSettings)) expect(environment).toContain(`${name}=${value}`);
    } finally {
      await kubeLoom.stopCleanly();
    }
  }, 120_000);

  // The executable is built with --splitting: client-node, which runs exec plugins, is a chunk of
  // its own, loaded on the first request of such a user and not held by every process.
  test("an exec credential plugin kubeconfig: client-node is loaded when the plugin is needed, and the caches sync", async () => {
    const dir = join(controlPlane.dir, "exec-plugin");
    mkdirSync(dir, { recursive: true });
    const rbac = await controlPlane.kubectl(["apply", "-f", "-"], { stdin: execPluginUser });
    expect(rbac.code).toBe(0);
    const token = await controlPlane.kubectl(["create", "token", "exec-plugin-user", "-n", "kube-system", "--duration=1h"]);
    expect(token.code).toBe(0);
    const plugin = join(dir, "credential-plugin.sh");
    const credential = { apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: token.stdout.trim() } };
    writeFileSync(plugin, `#!/bin/sh\ncat <<'EOF'\n${JSON.stringify(credential)}\nEOF\n`, { mode: 0o755 });
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      stringifyYaml({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: controlPlane.server, "certificate-authority": controlPlane.caFile } }],
        users: [{ name: "u", user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" } } }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        "current-context": "x",
      }),
    );
    const kubeLoom = await KubeLoomProcess.start({ binary, kubeconfig, logDir: dir, args: ["--controllers=replicaset", "--leader-elect=false"] });
    try {
      await waitUntil(() => kubeLoom.logs().includes("caches synced"), `caches synced (log ${kubeLoom.logPath})`, 60_000);
    } finally {
      await kubeLoom.stopCleanly();
    }
  }, 120_000);

  test("--help exits 0 and prints the flag groups", async () => {
    const { code, stdout } = await runBinary(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Leader election flags");
    expect(stdout).toContain("--kube-api-qps");
  });

  test("--help shows kube-controller-manager 1.37's --controller-shutdown-timeout (Generic) and --tls-curve-preferences (Secure serving), not the deprecated --shutdown-grace-period", async () => {
    const { code, stdout } = await runBinary(["--help"]);
    expect(code).toBe(0);
    const section = (group: string) => stdout.split(`\n${group} flags:\n`)[1]?.split(/\n\S.* flags:\n/)[0] ?? "";
    expect(section("Generic")).toMatch(/\n {6}--controller-shutdown-timeout duration +.*\(default 10s\)\n/);
    // Its help runs over two lines (the known IDs on the second).
    expect(section("Secure serving")).toMatch(/\n {6}--tls-curve-preferences int32Slice +.*\n +.*\(default \[\]\)\n/);
    expect(stdout).not.toContain("shutdown-grace-period");
  });

  test("the deprecated --shutdown-grace-period still runs, with one warning line", async () => {
    const { code, stderr } = await runBinary([
      `--kubeconfig=${controlPlane.kubeconfigPath}`,
      "--master=https://127.0.0.1:1",
      "--apiserver-wait-timeout=1s",
      "--port=0", "--secure-port=0",
      "--shutdown-grace-period=5s", "--shutdown-grace-period=6s",
    ]);
    expect(code).toBe(1);
    const warnings = stderr.split("\n").filter((line) => line.includes("deprecated"));
    expect(warnings).toEqual(["kube-loom: --shutdown-grace-period is deprecated: use --controller-shutdown-timeout (default 10s; there 0 means no limit)"]);
  }, 60_000);

  test("--tls-curve-preferences the runtime cannot offer, or Go does not know, exits 2 with one line", async () => {
    for (const [value, text] of [["4587", "curve ID 4587 (SecP256r1MLKEM768) is not available in Bun"], ["29,30", "curve ID 30 is not one Go's crypto/tls knows"]] as const) {
      const { code, stderr } = await runBinary([`--tls-curve-preferences=${value}`]);
      expect(code).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toContain(text);
    }
  });

  test("--version exits 0", async () => {
    const { code, stdout } = await runBinary(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^kube-loom v\d+\.\d+\.\d+/);
  });

  test("--controllers=bogus exits 2 with one line naming bogus", async () => {
    const { code, stderr } = await runBinary(["--controllers=bogus"]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain('"bogus"');
  });

  test("an unknown flag exits 2 with one line", async () => {
    const { code, stderr } = await runBinary(["--no-such-flag"]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("--no-such-flag");
  });

  test("invalid leader-election durations exit 2 with a clear line", async () => {
    const { code, stderr } = await runBinary(["--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=10s"]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("--leader-elect-renew-deadline");
  });

  test("a missing kubeconfig exits non-zero naming the path", async () => {
    const { code, stderr } = await runBinary(["--kubeconfig=/nonexistent/kubeconfig", "--port=0", "--secure-port=0"]);
    expect(code).not.toBe(0);
    expect(stderr).toContain("/nonexistent/kubeconfig");
    expect(stderr).not.toContain("    at ");
  });

  // Operational failures at start-up: one line on stderr naming the thing and the fix, exit 1, no stack trace.
  const expectOneLineFailure = (result: { code: number; stderr: string }, text: string) => {
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines.at(-1)).toContain(text);
    expect(result.stderr.split(text.replace(/^kube-loom: /, "")).length - 1).toBe(1);
    expect(result.stderr).not.toContain("    at ");
  };

  test("a port already in use is one line naming the address, exit 1", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
    try {
      const result = await runBinary([`--kubeconfig=${controlPlane.kubeconfigPath}`, `--port=${holder.port}`, "--secure-port=0", "--log-format=text"]);
      expectOneLineFailure(result, `kube-loom: cannot serve on 127.0.0.1:${holder.port}: the address is already in use`);
    } finally {
      await holder.stop(true);
    }
  });

  test("an unreadable client certificate file is one line naming it, exit 1", async () => {
    const kubeconfig = join(controlPlane.dir, "missing-cert.kubeconfig");
    writeFileSync(
      kubeconfig,
      stringifyYaml({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: controlPlane.server } }],
        users: [{ name: "u", user: { "client-certificate": "/nonexistent/client.crt", "client-key": "/nonexistent/client.key" } }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        "current-context": "x",
      }),
    );
    const result = await runBinary([`--kubeconfig=${kubeconfig}`, "--port=0", "--secure-port=0"]);
    expectOneLineFailure(result, 'kube-loom: cannot read client-certificate of user "u"');
    expect(result.stderr).toContain("/nonexistent/client.crt");
  });

  test("a kubeconfig without a current context works with --master, as client-go's does", async () => {
    const kubeconfig = join(controlPlane.dir, "empty.kubeconfig");
    writeFileSync(kubeconfig, stringifyYaml({ apiVersion: "v1", kind: "Config", clusters: [], contexts: [], users: [] }));
    const result = await runBinary([`--kubeconfig=${kubeconfig}`, "--master=https://127.0.0.1:1", "--apiserver-wait-timeout=1s", "--port=0", "--secure-port=0"]);
    // It got as far as the server the URL names, with no "context undefined" on the way.
    expectOneLineFailure(result, "API server https://127.0.0.1:1 not healthy after 1s");
    expect(result.stderr).not.toContain("undefined");
  }, 60_000);

  test("an unreachable server fails within the deadline with a clear message", async () => {
    const started = Date.now();
    const { code, stderr } = await runBinary([
      `--kubeconfig=${controlPlane.kubeconfigPath}`,
      "--master=https://127.0.0.1:1",
      "--apiserver-wait-timeout=3s",
      "--port=0", "--secure-port=0",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain("API server https://127.0.0.1:1 not healthy after 3s");
    expect(stderr).toContain("connection refused");
    // Generous bound: the point is that it gives up, not how fast.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
