// /debug/status in a real headless Chromium (Debian's chromium, driven by playwright-core):
// the compiled kube-loom runs all three controllers with leader election against the real
// control plane; the page shows the leader and the controllers, its replicaset row counts up on
// its own when a ReplicaSet is scaled, and a failing reconcile shows with its key. Over HTTPS
// the page is refused without credentials, like /metrics.
//
// The screenshots go to a folder under the system's temp dir (printed); with
// UPDATE_SCREENSHOTS=1 the first screen also goes to docs/status-page.png, the picture the README shows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { installCrd, kubectlOk } from "../network/network-fixture.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";

let controlPlane: ControlPlane;
let kubeLoom: KubeLoomProcess;
let browser: Browser;
let page: Page;
/** Every URL the page asked for. */
const requested: string[] = [];

const replicaSet = (namespace: string, name: string, replicas: number, cpu = "100m") => `
apiVersion: apps/v1
kind: ReplicaSet
metadata: { name: ${name}, namespace: ${namespace} }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: app, image: registry.example/${name}:1, resources: { limits: { cpu: "${cpu}" } } }] }
`;

// Who may read the page: its two paths, as an operator would grant them.
const statusReader = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: on-call, namespace: default }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: kube-loom-status-reader }
rules:
- { nonResourceURLs: ["/debug/status", "/debug/status.json"], verbs: [get] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: kube-loom-status-reader }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kube-loom-status-reader }
subjects: [{ kind: ServiceAccount, name: on-call, namespace: default }]
`;

// A LimitRange that the Pods of limited/api exceed: the API server refuses them, so the
// replicaset controller has an error to show.
const workload = `
apiVersion: v1
kind: Namespace
metadata: { name: shop }
---
apiVersion: v1
kind: Namespace
metadata: { name: limited }
---
apiVersion: v1
kind: LimitRange
metadata: { name: cpu, namespace: limited }
spec: { limits: [{ type: Container, max: { cpu: 500m } }] }
---
${replicaSet("shop", "web", 2)}
---
${replicaSet("limited", "api", 1, "2")}
---
apiVersion: samplecrd.k8s.io/v1
kind: Network
metadata: { name: backend, namespace: shop }
spec: { cidr: 10.20.0.0/24, gateway: 10.20.0.1 }
`;

beforeAll(async () => {
  const [cp, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom()]);
  controlPlane = cp;
  await installCrd(controlPlane, { cel: true });
  await kubectlOk(controlPlane, ["apply", "-f", "-"], workload + "---" + statusReader);
  kubeLoom = await KubeLoomProcess.start({ binary, kubeconfig: controlPlane.kubeconfigPath, logDir: controlPlane.dir, https: true });
  await kubeLoom.waitFor("/healthz");
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    // Playwright adds --headless and a fresh --user-data-dir; the rest keeps Chromium off the network.
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 1280 } });
  page.on("request", (request) => void requested.push(request.url()));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

/** The text of the first element matching `selector`, "" while there is none. */
async function textOf(selector: string): Promise<string> {
  const element = await page.$(selector);
  return ((await element?.textContent()) ?? "").trim();
}

const replicaSetCell = (field: string) => textOf(`tr[data-loop="replicaset"] td[data-field="${field}"]`);

describe("the status page in Chromium", () => {
  test("shows the leader and the controllers, and the replicaset row counts up by itself when a ReplicaSet is scaled", async () => {
    const status = (await (await fetch(`${kubeLoom.url}/debug/status.json`)).json()) as { process: { identity: string } };
    const { identity } = status.process;
    await page.goto(`${kubeLoom.url}/debug/status`);

    // Everything below arrives through the page's own refreshes: it is never reloaded.
    await waitUntil(async () => (await textOf('[data-field="leader"]')) === identity, "this process shown as the leader");
    await waitUntil(async () => (await textOf("#refresh")).startsWith("live"), "the page refreshing itself");
    for (const loop of ["replicaset", "garbagecollector-attempt-to-delete", "garbagecollector-attempt-to-orphan", "network"]) {
      expect(await page.$(`tr[data-loop="${loop}"]`)).not.toBeNull();
    }
    await waitUntil(async () => (await textOf('tr[data-loop="network"] td[data-field="reconciles"]')) !== "0", "the Network reconciled");
    await waitUntil(async () => (await textOf('tr[data-informer="pods.v1"] td[data-field="synced"]')) === "yes", "the Pod informer synced");
    await waitUntil(async () => (await textOf('[data-controller="garbagecollector"]')).includes("graph nodes"), "the garbage collector's graph size");

    await waitUntil(async () => Number(await replicaSetCell("adds")) > 0, "the replicaset queue's first adds");
    const before = { adds: Number(await replicaSetCell("adds")), reconciles: Number(await replicaSetCell("reconciles")) };
    await kubectlOk(controlPlane, ["scale", "replicaset/web", "-n", "shop", "--replicas=5"]);
    await waitUntil(
      async () => Number(await replicaSetCell("adds")) > before.adds && Number(await replicaSetCell("reconciles")) > before.reconciles,
      `the replicaset row's adds and reconciles to grow past ${JSON.stringify(before)}`,
    );

    // The Pods of limited/api are refused; the error is shown with the ReplicaSet it was about.
    await waitUntil(async () => (await textOf('[data-loop-details="replicaset"] .errors')).includes("limited/api"), "the limited/api error");
    await waitUntil(async () => (await textOf("#events")).includes("SuccessfulCreate"), "the recent Events");

    // Nothing asked of anyone but kube-loom: the page must render from a Pod cut off from the internet.
    expect(requested.filter((url) => !url.startsWith(`${kubeLoom.url}/`))).toEqual([]);
    expect(requested).toContain(`${kubeLoom.url}/debug/status.json`);

    const artifacts = mkdtempSync(join(tmpdir(), "kube-loom-status-page-"));
    const [whole, top] = [join(artifacts, "status-page-full.png"), join(artifacts, "status-page.png")];
    await page.screenshot({ path: whole, fullPage: true });
    await page.screenshot({ path: top });
    console.log(`status page screenshots: ${whole} (whole page), ${top} (first screen)`);
    if (process.env.UPDATE_SCREENSHOTS === "1") copyFileSync(top, resolve(import.meta.dir, "../../docs/status-page.png"));
  }, 240_000);

  test("over HTTPS, like /metrics: refused without credentials, served to a token allowed the paths, forbidden to others", async () => {
    const token = (await kubectlOk(controlPlane, ["create", "token", "on-call", "-n", "default"])).trim();
    const get = (path: string, bearer?: string) =>
      fetch(`${kubeLoom.secureUrl}${path}`, {
        headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
        // Only the status codes matter here; secure-serving.test.ts checks the certificate.
        tls: { rejectUnauthorized: false },
      } as RequestInit).then((response) => response.status);
    const statuses = async (bearer?: string) => Object.fromEntries(await Promise.all(["/debug/status", "/debug/status.json", "/metrics"].map(async (path) => [path, await get(path, bearer)])));
    expect(await statuses()).toEqual({ "/debug/status": 401, "/debug/status.json": 401, "/metrics": 401 });
    expect(await statuses(token)).toEqual({ "/debug/status": 200, "/debug/status.json": 200, "/metrics": 403 });
  });
});
