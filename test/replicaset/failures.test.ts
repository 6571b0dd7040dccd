// Pod creation and deletion refused by the API server (ValidatingAdmissionPolicies): the
// ReplicaSet gets a ReplicaFailure condition and a Warning Event, kube-loom retries with backoff
// instead of hammering the API server (create attempts counted from the API server's audit log),
// and it recovers once the rejection is lifted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { fastClient } from "../integration/informer-fixtures.ts";
import { waitUntil } from "../support/eventually.ts";
import type { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { apply, createNamespace, getReplicaSet, kubectl, listPods, replicaSetManifest, startKubeLoom, waitForStatus } from "./replicaset-fixture.ts";

const namespace = "failures";
let auditDir: string;
let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess;

// Every Pod create and delete in the test namespace, with its outcome.
const auditPolicy = JSON.stringify({
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    { level: "Metadata", verbs: ["create", "delete"], resources: [{ group: "", resources: ["pods"] }], namespaces: [namespace] },
    { level: "None" },
  ],
});

beforeAll(async () => {
  auditDir = mkdtempSync("/dev/shm/kube-loom-rs-audit-");
  writeFileSync(join(auditDir, "policy.json"), auditPolicy);
  controlPlane = await ControlPlane.start({
    extraApiserverArgs: [`--audit-policy-file=${join(auditDir, "policy.json")}`, `--audit-log-path=${join(auditDir, "audit.log")}`],
  });
  client = await fastClient(controlPlane.kubeconfigPath);
  await createNamespace(client, namespace);
  kubeLoom = await startKubeLoom(controlPlane, ["--controllers=replicaset"]);
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
  if (auditDir) rmSync(auditDir, { recursive: true, force: true });
});

interface AuditEvent {
  verb: string;
  userAgent?: string;
  objectRef?: { name?: string };
  responseStatus?: { code?: number };
}

/** kube-loom's Pod requests of one verb so far, as the API server recorded them. */
function kubeLoomRequests(verb: "create" | "delete"): AuditEvent[] {
  return readFileSync(join(auditDir, "audit.log"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((event) => event.verb === verb && event.userAgent?.startsWith("kube-loom/"));
}

/** A policy denying `operation` on Pods labelled app=`app` in the test namespace; resolves once it is enforced. */
async function denyPods(name: string, operation: "CREATE" | "DELETE", app: string, probe: () => Promise<unknown>): Promise<void> {
  const object = operation === "CREATE" ? "object" : "oldObject";
  await apply(controlPlane, [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: [operation], resources: ["pods"] }] },
        validations: [
          {
            expression: `!has(${object}.metadata.labels) || !('app' in ${object}.metadata.labels) || ${object}.metadata.labels['app'] != '${app}'`,
            message: `${operation.toLowerCase()} of app=${app} pods is not allowed here`,
          },
        ],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ["Deny"],
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } } },
      },
    },
  ]);
  // Policies are compiled in the background; wait until the API server enforces this one.
  await waitUntil(() => probe().then(() => false, (err: unknown) => String(err).includes("is not allowed here")), `policy ${name} enforced`);
}

async function failureEvents(rsName: string, reason: string): Promise<string[]> {
  const selector = `involvedObject.kind=ReplicaSet,involvedObject.name=${rsName},reason=${reason}`;
  const out = await kubectl(controlPlane, ["get", "events", "-n", namespace, "--field-selector", selector, "-o", "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}"]);
  return out.split("\n").filter((line) => line !== "");
}

describe("rejected Pod writes", () => {
  test("a denied creation sets ReplicaFailure and a FailedCreate Event, backs off, and recovers once allowed", async () => {
    const probePod = { apiVersion: "v1", kind: "Pod", metadata: { name: "probe", labels: { app: "blocked" } }, spec: { containers: [{ name: "a", image: "a" }] } };
    await denyPods("deny-create", "CREATE", "blocked", () => kubectl(controlPlane, ["create", "-n", namespace, "--dry-run=server", "-f", "-"], JSON.stringify(probePod)));

    await apply(controlPlane, [replicaSetManifest({ name: "blocked", namespace, replicas: 5, labels: { app: "blocked" } })]);
    await waitUntil(
      async () => (await getReplicaSet(client, namespace, "blocked")).status?.conditions?.some((c) => c.type === "ReplicaFailure") ?? false,
      "the ReplicaFailure condition",
    );
    const failed = await getReplicaSet(client, namespace, "blocked");
    expect(failed.status?.replicas ?? 0).toBe(0);
    expect(failed.status?.conditions).toEqual([
      expect.objectContaining({ type: "ReplicaFailure", status: "True", reason: "FailedCreate", message: expect.stringContaining("is not allowed here") }),
    ]);
    await waitUntil(async () => (await failureEvents("blocked", "FailedCreate")).length > 0, "a FailedCreate Event");
    expect((await failureEvents("blocked", "FailedCreate"))[0]).toContain("Error creating: ");

    // No hot loop: slow start tries one Pod per sync, and failed syncs back off exponentially.
    const started = kubeLoomRequests("create").length;
    await Bun.sleep(15_000);
    const attempts = kubeLoomRequests("create");
    // The policy's Deny answers 422 Invalid.
    expect(attempts.every((event) => event.responseStatus?.code === 422)).toBe(true);
    // Backoff doubles from 5 ms: about a dozen attempts in the first 16 s (a hot loop would make hundreds).
    expect(attempts.length - started).toBeLessThanOrEqual(10);
    expect(attempts.length).toBeLessThanOrEqual(25);

    await kubectl(controlPlane, ["delete", "validatingadmissionpolicybinding", "deny-create"]);
    await waitForStatus(client, namespace, "blocked", { replicas: 5 }, 180_000);
    await waitUntil(async () => !(await getReplicaSet(client, namespace, "blocked")).status?.conditions, "ReplicaFailure removed");
    expect(await listPods(client, namespace, "app=blocked")).toHaveLength(5);
    expect(kubeLoomRequests("create").filter((event) => event.responseStatus?.code === 201)).toHaveLength(5);
  }, 300_000);

  test("a denied deletion sets ReplicaFailure with reason FailedDelete and a FailedDelete Event, then recovers", async () => {
    await apply(controlPlane, [replicaSetManifest({ name: "sticky", namespace, replicas: 3, labels: { app: "sticky" } })]);
    await waitForStatus(client, namespace, "sticky", { replicas: 3 });
    // A server-side dry run shows when the policy is enforced, without deleting anything.
    await denyPods("deny-delete", "DELETE", "sticky", async () => {
      const [pod] = await listPods(client, namespace, "app=sticky");
      await kubectl(controlPlane, ["delete", "pod", pod?.metadata?.name ?? "", "-n", namespace, "--dry-run=server"]);
    });

    await kubectl(controlPlane, ["scale", "rs/sticky", "-n", namespace, "--replicas=1"]);
    await waitUntil(
      async () => (await getReplicaSet(client, namespace, "sticky")).status?.conditions?.some((c) => c.reason === "FailedDelete") ?? false,
      "ReplicaFailure with reason FailedDelete",
    );
    await waitUntil(async () => (await failureEvents("sticky", "FailedDelete")).length > 0, "a FailedDelete Event");
    expect((await failureEvents("sticky", "FailedDelete"))[0]).toContain("Error deleting: ");
    expect(await listPods(client, namespace, "app=sticky")).toHaveLength(3);

    await kubectl(controlPlane, ["delete", "validatingadmissionpolicybinding", "deny-delete"]);
    await waitForStatus(client, namespace, "sticky", { replicas: 1 }, 180_000);
    await waitUntil(async () => !(await getReplicaSet(client, namespace, "sticky")).status?.conditions, "ReplicaFailure removed");
    expect(await listPods(client, namespace, "app=sticky")).toHaveLength(1);
  }, 300_000);
});
