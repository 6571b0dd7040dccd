// The health endpoints of a running kube-loom binary, readiness that waits
// for cache sync, and /metrics that promtool accepts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";

let controlPlane: ControlPlane;
let kubeLoom: KubeLoomProcess;
let probeLog: string;

// What kube-loom needs besides the ConfigMap informer, which is granted later in the test.
const baseRbac = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: kube-loom-leases, namespace: kube-system }
rules:
- { apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch, create, update] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: kube-loom-leases, namespace: kube-system }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: kube-loom-leases }
subjects: [{ kind: User, name: kube-loom-limited }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: kube-loom-events }
rules:
- { apiGroups: [events.k8s.io], resources: [events], verbs: [create, patch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: kube-loom-events }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kube-loom-events }
subjects: [{ kind: User, name: kube-loom-limited }]
`;

const configMapRbac = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: kube-loom-configmaps }
rules:
- { apiGroups: [""], resources: [configmaps], verbs: [list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: kube-loom-configmaps }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kube-loom-configmaps }
subjects: [{ kind: User, name: kube-loom-limited }]
`;

beforeAll(async () => {
  const [cp, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom("test/fixtures/leader-probe/main.ts")]);
  controlPlane = cp;
  expect((await controlPlane.kubectl(["apply", "-f", "-"], { stdin: baseRbac })).code).toBe(0);
  const limited = controlPlane.writeKubeconfig({ client: await controlPlane.issueClientCertificate({ user: "kube-loom-limited" }) });
  probeLog = join(controlPlane.dir, "probe.log");
  writeFileSync(probeLog, "");
  kubeLoom = await KubeLoomProcess.start({
    binary,
    kubeconfig: limited,
    logDir: controlPlane.dir,
    args: ["--controllers=leader-probe", `--leader-probe-log=${probeLog}`],
  });
  await kubeLoom.waitFor("/healthz");
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

async function get(path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(kubeLoom.url + path);
  return { status: response.status, body: await response.text() };
}

describe("kube-loom's HTTP endpoints", () => {
  test("/readyz fails until the informer caches sync, naming the informer and why; /healthz is fine meanwhile; nothing is reconciled", async () => {
    expect(await get("/readyz")).toEqual({ status: 500, body: "[-]informer-sync failed: reason withheld\nreadyz check failed\n" });
    await waitUntil(async () => /forbidden/.test((await get("/readyz/informer-sync")).body), "/readyz/informer-sync to give the list error", 60_000, 250);
    const reason = await get("/readyz/informer-sync");
    expect(reason.status).toBe(500);
    expect(reason.body).toMatch(/^internal server error: informers not synced: configmaps\.v1 \(last error: .*configmaps is forbidden/);
    expect(await get("/healthz")).toEqual({ status: 200, body: "ok" });
    // Leading, but its cache is cold: the probe must not have reconciled once.
    expect(readFileSync(probeLog, "utf8")).toBe("");
    // RBAC lets the ConfigMap informer list at last: the reflector's backoff retries, the cache syncs.
    expect((await controlPlane.kubectl(["apply", "-f", "-"], { stdin: configMapRbac })).code).toBe(0);
    await waitUntil(async () => (await get("/readyz")).status === 200, "/readyz 200 after RBAC grant", 90_000, 250);
    expect(await get("/readyz?verbose")).toEqual({ status: 200, body: "[+]informer-sync ok\nreadyz check passed\n" });
  }, 120_000);

  test("/healthz and /livez list leader election and each controller; subpaths and ?exclude work", async () => {
    expect(await get("/healthz?verbose")).toEqual({ status: 200, body: "[+]leader-probe ok\n[+]leaderElection ok\nhealthz check passed\n" });
    expect(await get("/livez?verbose")).toEqual({ status: 200, body: "[+]leader-probe ok\n[+]leaderElection ok\nlivez check passed\n" });
    expect(await get("/healthz/leaderElection")).toEqual({ status: 200, body: "ok" });
    expect((await get("/healthz?verbose&exclude=leaderElection")).body).toContain("[+]leaderElection excluded: ok");
    expect((await get("/healthz/unknown")).status).toBe(404);
  });

  test("/metrics passes promtool check metrics and carries the metrics operators look for", async () => {
    await waitUntil(async () => (await get("/metrics")).body.includes('controller_runtime_reconcile_total{controller="leader-probe"'), "reconcile metrics", 60_000);
    const { status, body } = await get("/metrics");
    expect(status).toBe(200);
    const promtool = Bun.spawn(["promtool", "check", "metrics"], { stdin: new Blob([body]), stdout: "pipe", stderr: "pipe" });
    const [code, out, err] = await Promise.all([promtool.exited, new Response(promtool.stdout).text(), new Response(promtool.stderr).text()]);
    expect({ code, problems: `${out}${err}`.trim() }).toEqual({ code: 0, problems: "" });
    for (const name of [
      'workqueue_depth{name="leader-probe"}',
      'workqueue_adds_total{name="leader-probe"}',
      "workqueue_queue_duration_seconds_bucket",
      "workqueue_work_duration_seconds_bucket",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
      "workqueue_retries_total",
      "leader_election_master_status",
      "rest_client_requests_total",
      "rest_client_request_duration_seconds_bucket",
      "controller_runtime_reconcile_total",
      "controller_runtime_reconcile_errors_total",
      "controller_runtime_reconcile_time_seconds_bucket",
      'informer_queued_items{name="kube-loom",group="",version="v1",resource="configmaps"}',
      'informer_processing_latency_seconds_bucket{le="0.001",name="kube-loom",group="",version="v1",resource="configmaps"}',
      'informer_store_resource_version{name="kube-loom",group="",version="v1",resource="configmaps"}',
      "process_resident_memory_bytes",
    ]) {
      expect(body).toContain(name);
    }
  }, 90_000);
});
