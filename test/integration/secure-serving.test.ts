// HTTPS on --secure-port against the real control plane: who may read /metrics is decided by
// the API server (TokenReview, SubjectAccessReview) or by a client certificate, the probe paths
// need nobody, a real Prometheus scrapes with a bearer token file, and an API server that is
// gone turns requests away promptly instead of holding them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { type DaemonProcess, logTail, spawnDaemon, stopDaemon } from "../controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "../controlplane/free-ports.ts";
import { issueClientCertificate, type IssuedCertificate } from "../controlplane/pki.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { generateSelfSignedCertificate } from "../../pkg/server/self-signed-certificate.ts";

let controlPlane: ControlPlane;
let binary: string;
let kubeLoom: KubeLoomProcess;
let certDir: string;

const rbac = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: scraper, namespace: default }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: stranger, namespace: default }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: kube-loom-metrics-reader }
rules:
- { nonResourceURLs: [/metrics], verbs: [get] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: kube-loom-metrics-reader }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kube-loom-metrics-reader }
subjects:
- { kind: ServiceAccount, name: scraper, namespace: default }
- { kind: User, name: cert-scraper }
`;

beforeAll(async () => {
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
  expect((await controlPlane.kubectl(["apply", "-f", "-"], { stdin: rbac })).code).toBe(0);
  certDir = join(controlPlane.dir, "kube-loom-certs");
  kubeLoom = await KubeLoomProcess.start({
    binary,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    https: true,
    // No --client-ca-file: the client CA is the one the API server publishes, as in a cluster.
    args: ["--leader-elect=false", "--controllers=replicaset", `--cert-dir=${certDir}`, "-v=4"],
  });
  await kubeLoom.waitFor("/healthz");
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

async function token(serviceAccount: string): Promise<string> {
  const result = await controlPlane.kubectl(["create", "token", serviceAccount, "-n", "default"]);
  expect(result.code).toBe(0);
  return result.stdout.trim();
}

/** GETs over HTTPS, trusting the CA kube-loom wrote into --cert-dir (the second certificate of kube-loom.crt). */
async function get(
  path: string,
  credentials: { token?: string; client?: IssuedCertificate; accept?: string } = {},
): Promise<{ status: number; body: string; type: string | null }> {
  const ca = readFileSync(join(certDir, "kube-loom.crt"), "utf8");
  const tls = { ca, ...(credentials.client ? { cert: credentials.client.certPem, key: credentials.client.keyPem } : {}) };
  const headers: Record<string, string> = {
    ...(credentials.token ? { Authorization: `Bearer ${credentials.token}` } : {}),
    ...(credentials.accept ? { Accept: credentials.accept } : {}),
  };
  const response = await fetch(`${kubeLoom.secureUrl}${path}`, { headers, tls, signal: AbortSignal.timeout(30_000) } as RequestInit);
  return { status: response.status, body: await response.text(), type: response.headers.get("content-type") };
}

const pairFor = (host: string) => generateSelfSignedCertificate({ host, alternateIps: ["127.0.0.1"], alternateDnsNames: [] });

describe("start-up failures", () => {
  async function runToExit(args: string[]): Promise<{ code: number; stderr: string }> {
    const child = Bun.spawn([binary, `--kubeconfig=${controlPlane.kubeconfigPath}`, "--port=0", "--leader-elect=false", ...args], { stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    return { code, stderr };
  }

  // The log has its own lines on stderr; what the operator reads last is the one line, with no stack trace.
  function expectOneLine(result: { code: number; stderr: string }, line: string): void {
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n").at(-1)).toBe(line);
    expect(result.stderr.split(line.replace(/^kube-loom: /, "")).length - 1).toBe(1);
    expect(result.stderr).not.toContain("    at ");
  }

  test("an unreadable certificate file: one line, exit 1", async () => {
    const result = await runToExit(["--tls-cert-file=/nonexistent/tls.crt", "--tls-private-key-file=/nonexistent/tls.key"]);
    expectOneLine(result, "kube-loom: cannot read --tls-cert-file /nonexistent/tls.crt: ENOENT: no such file or directory, open '/nonexistent/tls.crt'");
  });

  test("a key that does not match its certificate: one line, exit 1", async () => {
    const dir = join(controlPlane.dir, "mismatch");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "tls.crt"), pairFor("one").certPem);
    writeFileSync(join(dir, "tls.key"), pairFor("two").keyPem);
    const result = await runToExit([`--tls-cert-file=${join(dir, "tls.crt")}`, `--tls-private-key-file=${join(dir, "tls.key")}`]);
    expectOneLine(result, `kube-loom: --tls-private-key-file ${join(dir, "tls.key")} does not match --tls-cert-file ${join(dir, "tls.crt")}: it is the key of another certificate`);
  });

  test("--secure-port in use: one line, exit 1", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
    try {
      const result = await runToExit(["--bind-address=127.0.0.1", `--secure-port=${holder.port}`]);
      expectOneLine(result, `kube-loom: cannot serve on 127.0.0.1:${holder.port}: the address is already in use (another kube-loom or kube-controller-manager?); stop it or choose another port`);
    } finally {
      await holder.stop(true);
    }
  });
});

describe("--tls-cert-file and --tls-private-key-file", () => {
  /** The CN of the certificate a new connection is served. */
  function servedCommonName(url: string): Promise<string> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
        const cn = socket.getPeerCertificate().subject?.CN;
        resolve(String(cn));
        socket.end();
      });
      socket.once("error", reject);
    });
  }

  test("are served, and re-read when they change on disk", async () => {
    const dir = join(controlPlane.dir, "rotating-certificate");
    mkdirSync(dir, { recursive: true });
    const certFile = join(dir, "tls.crt");
    const keyFile = join(dir, "tls.key");
    const [before, after] = [pairFor("before"), pairFor("after")];
    writeFileSync(certFile, before.certPem);
    writeFileSync(keyFile, before.keyPem);
    const rotating = await KubeLoomProcess.start({
      binary,
      kubeconfig: controlPlane.kubeconfigPath,
      logDir: controlPlane.dir,
      name: "rotating",
      https: true,
      args: ["--leader-elect=false", "--controllers=replicaset", `--tls-cert-file=${certFile}`, `--tls-private-key-file=${keyFile}`],
    });
    try {
      await rotating.waitFor("/healthz");
      const url = rotating.secureUrl ?? "";
      expect(await servedCommonName(url)).toStartWith("before@");
      writeFileSync(keyFile, after.keyPem);
      writeFileSync(certFile, after.certPem);
      await waitUntil(async () => (await servedCommonName(url)).startsWith("after@"), "the new certificate served", 30_000);
    } finally {
      await rotating.stop();
    }
  }, 120_000);
});

describe("HTTPS with delegated authentication and authorization", () => {
  test("/metrics without credentials: 401 Unauthorized", async () => {
    const { status, body } = await get("/metrics");
    expect(status).toBe(401);
    expect(JSON.parse(body)).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
  });

  test("/metrics with a ServiceAccount token that RBAC does not allow: 403 naming the user", async () => {
    const { status, body } = await get("/metrics", { token: await token("stranger") });
    expect(status).toBe(403);
    expect(JSON.parse(body)).toMatchObject({
      reason: "Forbidden",
      message: 'forbidden: User "system:serviceaccount:default:stranger" cannot get path "/metrics"',
    });
  });

  test("/metrics with a token allowed to GET it: 200 and Prometheus text", async () => {
    const { status, body, type } = await get("/metrics", { token: await token("scraper") });
    expect(status).toBe(200);
    expect(type).toStartWith("text/plain");
    expect(body).toContain("# TYPE rest_client_requests_total counter");
  });

  test("an invalid token: 401", async () => {
    expect((await get("/metrics", { token: "not-a-token" })).status).toBe(401);
  });

  test("/healthz, /livez and /readyz need no credentials", async () => {
    await waitUntil(async () => (await get("/readyz")).status === 200, "/readyz over HTTPS");
    expect(await get("/healthz")).toMatchObject({ status: 200, body: "ok" });
    expect((await get("/livez")).status).toBe(200);
  });

  test("client certificates from the cluster's client CA: allowed user 200, system:masters 200, no RBAC 403, unknown CA 401", async () => {
    const [allowed, nobody, outsider] = await Promise.all([
      controlPlane.issueClientCertificate({ user: "cert-scraper" }),
      controlPlane.issueClientCertificate({ user: "cert-nobody", groups: ["devs"] }),
      issueClientCertificate(controlPlane.pki.otherCa, { user: "cert-scraper" }),
    ]);
    // The CA is read from kube-system/extension-apiserver-authentication in the background.
    await waitUntil(async () => (await get("/metrics", { client: controlPlane.admin })).status === 200, "the admin certificate accepted");
    expect((await get("/metrics", { client: allowed })).status).toBe(200);
    expect(await get("/metrics", { client: nobody })).toMatchObject({ status: 403, body: expect.stringContaining('User \\"cert-nobody\\" cannot get path') });
    expect((await get("/metrics", { client: outsider })).status).toBe(401);
  });

  test("/statusz and /flagz (kube-controller-manager 1.36+): credentials needed; the system:monitoring group, granted them by the bootstrap policy, reads both forms", async () => {
    const monitor = await controlPlane.issueClientCertificate({ user: "cert-monitor", groups: ["system:monitoring"] });
    await waitUntil(async () => (await get("/metrics", { client: controlPlane.admin })).status === 200, "the cluster's client CA read");
    expect((await get("/statusz")).status).toBe(401);
    expect((await get("/flagz", { token: await token("stranger") })).status).toBe(403);

    const text = await get("/statusz", { client: monitor });
    expect(text).toMatchObject({ status: 200, type: "text/plain; charset=utf-8" });
    expect(text.body).toStartWith("\nkube-loom statusz\n");
    expect(text.body).toMatch(/\nBinary version(: |:|=| ) \d+\.\d+\.\d+\n/);

    const structured = await get("/statusz", { client: monitor, accept: "application/json;as=Statusz;v=v1beta1;g=config.k8s.io" });
    expect(structured.type).toBe("application/json;g=config.k8s.io;v=v1beta1;as=Statusz");
    const statusz = JSON.parse(structured.body);
    expect(statusz).toMatchObject({ kind: "Statusz", apiVersion: "config.k8s.io/v1beta1", metadata: { name: "kube-loom" }, emulationVersion: "1.37" });
    expect(statusz.goVersion).toStartWith("Bun ");
    expect(statusz.paths).toEqual(["/debug", "/flagz", "/healthz", "/livez", "/metrics", "/readyz"]);
    expect(Date.now() - Date.parse(statusz.startTime)).toBeLessThan(30 * 60_000);
    expect((await get("/statusz", { client: monitor, accept: "application/json" })).status).toBe(406);

    const flagz = JSON.parse((await get("/flagz", { client: monitor, accept: "application/json;as=Flagz;v=v1beta1;g=config.k8s.io" })).body);
    expect(flagz).toMatchObject({ kind: "Flagz", apiVersion: "config.k8s.io/v1beta1", metadata: { name: "kube-loom" } });
    expect(flagz.flags).toMatchObject({
      controllers: "[replicaset]",
      "leader-elect": "false",
      v: "4",
      "cert-dir": certDir,
      "controller-shutdown-timeout": "10s",
      "tls-curve-preferences": "[]",
      "min-resync-period": "12h0m0s",
    });
    expect((await get("/flagz", { client: monitor })).body).toMatch(/\nsecure-port(: |:|=| )\d+\n/);
  });

  test("/metrics carries version_info as kube-controller-manager 1.37 does, with kube-loom's versions", async () => {
    const { body } = await get("/metrics", { token: await token("scraper") });
    expect(body).toMatch(/\nversion_info\{component="kube-loom",binary="\d+\.\d+\.\d+",emulation="1\.37",min_compat="1\.36"\} 1\n/);
  });

  test("Prometheus scrapes /metrics with a bearer token file and reports up == 1", async () => {
    const dir = join(controlPlane.dir, "prometheus");
    mkdirSync(dir, { recursive: true });
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, await token("scraper"));
    const caFile = join(certDir, "kube-loom.crt");
    const configFile = join(dir, "prometheus.yml");
    writeFileSync(
      configFile,
      [
        "global: { scrape_interval: 1s, scrape_timeout: 1s }",
        "scrape_configs:",
        "- job_name: kube-loom",
        "  scheme: https",
        `  tls_config: { ca_file: ${caFile} }`,
        `  authorization: { credentials_file: ${tokenFile} }`,
        `  static_configs: [{ targets: ["${new URL(kubeLoom.secureUrl ?? "").host}"] }]`,
        "",
      ].join("\n"),
    );
    const { port } = await freeLoopbackPorts(["port"] as const);
    const logPath = join(dir, "prometheus.log");
    const prometheus: DaemonProcess = spawnDaemon(
      ["prometheus", `--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
      logPath,
    );
    try {
      const up = async () => {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent('up{job="kube-loom"}')}`).catch(() => undefined);
        if (!response?.ok) return undefined;
        const { data } = (await response.json()) as { data: { result: { value: [number, string] }[] } };
        return data.result[0]?.value[1];
      };
      await waitUntil(async () => (await up()) === "1", `Prometheus up == 1 (log: ${logPath})`, 120_000, 500).catch((err: Error) => {
        throw new Error(`${err.message}\n${logTail(logPath)}`);
      });
    } finally {
      await stopDaemon(prometheus);
    }
  }, 180_000);

  // Last: it stops the API server.
  test("with the API server gone, a token not seen before is refused with 401 at once (under 3 s, no timeout waited out) and the probes still answer", async () => {
    await controlPlane.stopApiserver();
    const started = performance.now();
    expect((await get("/metrics", { token: "never-seen-before" })).status).toBe(401);
    // The refused connection fails the TokenReview at once: the review's 5 s timeout (REVIEW_TIMEOUT_MS) is not waited out.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await get("/livez")).status).toBe(200);
    expect(kubeLoom.logs()).toContain("the TokenReview failed");
  }, 120_000);
});
