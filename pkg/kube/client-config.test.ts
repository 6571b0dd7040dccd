import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ClientConfigError, loadClientConfig } from "./client-config.ts";

const dir = mkdtempSync(join(tmpdir(), "client-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(name: string, contexts: { name: string; server: string; namespace?: string }[], current: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: contexts.map((c) => ({ name: c.name, cluster: { server: c.server } })),
      users: contexts.map((c) => ({ name: c.name, user: { token: `token-${c.name}` } })),
      contexts: contexts.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name, ...(c.namespace ? { namespace: c.namespace } : {}) } })),
      "current-context": current,
    }),
  );
  return path;
}

const two = kubeconfig("two", [{ name: "a", server: "https://a.example:6443" }, { name: "b", server: "https://b.example:6443/", namespace: "team-b" }], "a");
const other = kubeconfig("other", [{ name: "x", server: "https://x.example:6443" }], "x");

describe("where the connection comes from", () => {
  test("--kubeconfig wins over $KUBECONFIG and the in-cluster environment", () => {
    const config = loadClientConfig({ kubeconfig: two, env: { KUBECONFIG: other, KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" } });
    expect(config.server).toBe("https://a.example:6443");
    expect(config.source).toContain(two);
  });

  test("$KUBECONFIG comes next; the first existing file of its list is used", () => {
    const config = loadClientConfig({ env: { KUBECONFIG: `${join(dir, "missing")}:${other}` } });
    expect(config.server).toBe("https://x.example:6443");
  });

  test("then the in-cluster service account, then ~/.kube/config", () => {
    const serviceAccountDir = join(dir, "sa");
    mkdirSync(serviceAccountDir, { recursive: true });
    writeFileSync(join(serviceAccountDir, "token"), "sa-token\n");
    writeFileSync(join(serviceAccountDir, "namespace"), "kube-system");
    const inCluster = loadClientConfig({ env: { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir });
    expect(inCluster.server).toBe("https://[fd00::1]:443");
    expect(inCluster.namespace).toBe("kube-system");

    const home = join(dir, "home");
    mkdirSync(join(home, ".kube"), { recursive: true });
    copyFileSync(other, join(home, ".kube", "config"));
    expect(loadClientConfig({ env: {}, homeDir: home }).server).toBe("https://x.example:6443");
  });

  test("--context picks a context (server, namespace and user)", async () => {
    const config = loadClientConfig({ kubeconfig: two, context: "b" });
    expect(config.server).toBe("https://b.example:6443");
    expect(config.namespace).toBe("team-b");
    expect(await config.authenticate()).toEqual({ Authorization: "Bearer token-b" });
  });

  test("--master overrides the server of whatever source was chosen", () => {
    expect(loadClientConfig({ kubeconfig: two, master: "https://override:8443" }).server).toBe("https://override:8443");
  });

  test("--master with a kubeconfig that has no clusters or contexts uses the URL alone, as client-go does", async () => {
    const empty = join(dir, "empty");
    writeFileSync(empty, stringify({ apiVersion: "v1", kind: "Config", clusters: [], contexts: [], users: [] }));
    const config = loadClientConfig({ kubeconfig: empty, master: "https://127.0.0.1:6443" });
    expect(config.server).toBe("https://127.0.0.1:6443");
    expect(await config.authenticate()).toEqual({});
  });

  test("a kubeconfig without a current context says so, and names the contexts it has", () => {
    const noCurrent = kubeconfig("no-current", [{ name: "a", server: "https://a.example:6443" }], "");
    expect(() => loadClientConfig({ kubeconfig: noCurrent })).toThrow(
      `kubeconfig ${noCurrent} sets no current-context: pass --context (contexts: a) or run kubectl config use-context`,
    );
    const dangling = kubeconfig("dangling", [{ name: "a", server: "https://a.example:6443" }], "gone");
    expect(() => loadClientConfig({ kubeconfig: dangling })).toThrow(`kubeconfig ${dangling}: current-context "gone" is not one of its contexts (contexts: a)`);
  });

  test("bad input is a ClientConfigError naming what is wrong", () => {
    expect(() => loadClientConfig({ kubeconfig: join(dir, "nope") })).toThrow(`kubeconfig ${join(dir, "nope")} (--kubeconfig) not found`);
    expect(() => loadClientConfig({ kubeconfig: two, context: "c" })).toThrow(`context "c" not found in kubeconfig ${two} (contexts: a, b)`);
    expect(() => loadClientConfig({ kubeconfig: two, master: "not a url" })).toThrow('invalid --master "not a url"');
    expect(() => loadClientConfig({ env: {}, homeDir: join(dir, "empty-home") })).toThrow(ClientConfigError);
    const noServer = join(dir, "no-server");
    writeFileSync(noServer, stringify({ clusters: [{ name: "a", cluster: {} }], contexts: [{ name: "a", context: { cluster: "a" } }], "current-context": "a" }));
    expect(() => loadClientConfig({ kubeconfig: noServer })).toThrow(`kubeconfig ${noServer}: cluster "a" has no server`);
    expect(loadClientConfig({ kubeconfig: noServer, master: "https://m:6443" }).server).toBe("https://m:6443");
    const malformed = join(dir, "malformed");
    writeFileSync(malformed, stringify({ users: [{ name: "a", user: { token: 42 } }] }));
    expect(() => loadClientConfig({ kubeconfig: malformed })).toThrow(new RegExp(`^cannot read kubeconfig ${malformed}: users\\[0\\]\\.user\\.token: `));
  });

  test("an exec credential plugin that answers with a client certificate is a ClientConfigError naming the user, not an anonymous client", async () => {
    const plugin = join(dir, "cert-plugin.sh");
    const credential = { apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { clientCertificateData: "-----BEGIN CERTIFICATE-----", clientKeyData: "-----BEGIN PRIVATE KEY-----" } };
    writeFileSync(plugin, `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`, { mode: 0o755 });
    const path = join(dir, "exec-cert");
    writeFileSync(
      path,
      stringify({
        clusters: [{ name: "a", cluster: { server: "https://a.example:6443" } }],
        users: [{ name: "teleport", user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" } } }],
        contexts: [{ name: "a", context: { cluster: "a", user: "teleport" } }],
        "current-context": "a",
      }),
    );
    const failure = await loadClientConfig({ kubeconfig: path }).authenticate().then(() => undefined, (err: unknown) => err);
    expect(failure).toBeInstanceOf(ClientConfigError);
    expect(String((failure as Error).message)).toBe(
      'the exec credential plugin of user "teleport" answered with a client certificate, which kube-loom cannot present: expected a plugin that answers with a token',
    );
  });

  test("a rotated token file is read again", async () => {
    const serviceAccountDir = join(dir, "rotating");
    mkdirSync(serviceAccountDir, { recursive: true });
    writeFileSync(join(serviceAccountDir, "token"), "first");
    const config = loadClientConfig({ env: { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir });
    expect(await config.authenticate()).toEqual({ Authorization: "Bearer first" });
    await Bun.sleep(10);
    writeFileSync(join(serviceAccountDir, "token"), "second");
    expect(await config.authenticate()).toEqual({ Authorization: "Bearer second" });
  });
});
