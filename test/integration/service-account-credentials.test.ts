// --use-service-account-credentials, as kube-controller-manager has it: each controller acts as its
// own ServiceAccount (created if missing, tokens from the TokenRequest API), so the API server's
// audit log names the controller behind each write and RBAC can grant each controller alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { counterTotal } from "../network/network-fixture.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { fastClient } from "./informer-fixtures.ts";
import { apply, createNamespace, kubectl, replicaSetManifest, startKubeLoom, waitForStatus } from "../replicaset/replicaset-fixture.ts";

const overlay = resolve(import.meta.dir, "../../deploy/kubernetes/overlays/service-account-credentials");

const namespace = "as-service-account";
const account = "system:serviceaccount:kube-system:replicaset-controller";
let auditDir: string;
let controlPlane: ControlPlane;
let client: KubeClient;
let kubeLoom: KubeLoomProcess | undefined;

beforeAll(async () => {
  auditDir = mkdtempSync("/dev/shm/kube-loom-sa-audit-");
  const policy = {
    apiVersion: "audit.k8s.io/v1",
    kind: "Policy",
    omitStages: ["RequestReceived"],
    rules: [{ level: "Metadata", verbs: ["create"], resources: [{ group: "", resources: ["pods"] }], namespaces: [namespace] }, { level: "None" }],
  };
  writeFileSync(join(auditDir, "policy.json"), JSON.stringify(policy));
  controlPlane = await ControlPlane.start({
    extraApiserverArgs: [`--audit-policy-file=${join(auditDir, "policy.json")}`, `--audit-log-path=${join(auditDir, "audit.log")}`],
  });
  client = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
  if (auditDir) rmSync(auditDir, { recursive: true, force: true });
});

/** The shipped replicaset ClusterRole, bound to the controller's own ServiceAccount instead of kube-loom's. */
function replicaSetRoleForItsAccount(): object[] {
  const shipped = readFileSync(resolve(import.meta.dir, "../../deploy/kubernetes/base/replicaset-role.yaml"), "utf8");
  const role = parseAllDocuments(shipped).map((doc) => doc.toJS() as { kind: string }).find((object) => object.kind === "ClusterRole");
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "replicaset-controller-as-itself" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "kube-loom:controller:replicaset" },
    subjects: [{ kind: "ServiceAccount", name: "replicaset-controller", namespace: "kube-system" }],
  };
  return [role ?? {}, binding];
}

describe("--use-service-account-credentials", () => {
  test("the replicaset controller creates Pods as kube-system/replicaset-controller, an account kube-loom created", async () => {
    await apply(controlPlane, replicaSetRoleForItsAccount());
    kubeLoom = await startKubeLoom(controlPlane, ["--controllers=replicaset", "--use-service-account-credentials"]);
    await createNamespace(client, namespace);
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 2 })]);
    await waitForStatus(client, namespace, "web", { replicas: 2 });

    const creates = readFileSync(join(auditDir, "audit.log"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { stage: string; user: { username: string } })
      .filter((event) => event.stage === "ResponseComplete");
    expect(creates.map((event) => event.user.username)).toEqual([account, account]);
    const created = await client.dynamic.resource(resources.serviceAccounts, "kube-system").get("replicaset-controller");
    expect(created.metadata?.name).toBe("replicaset-controller");
    expect(await kubectl(controlPlane, ["auth", "can-i", "create", "pods", `--as=${account}`, "-n", namespace])).toContain("yes");
  }, 180_000);

  test("the shipped overlay is enough: as the kube-loom ServiceAccount, with every controller, it leads, gets ready and is never forbidden", async () => {
    await kubeLoom?.stop();
    kubeLoom = undefined;
    await kubectl(controlPlane, ["apply", "--server-side", "-k", overlay]);
    await kubectl(controlPlane, ["wait", "--for=condition=Established", "crd/networks.samplecrd.k8s.io", "--timeout=60s"]);
    const token = (await kubectl(controlPlane, ["create", "token", "kube-loom", "-n", "kube-system"])).trim();
    kubeLoom = await KubeLoomProcess.start({
      binary: await buildKubeLoom(),
      kubeconfig: await controlPlane.writeKubeconfig({ token }),
      logDir: controlPlane.dir,
      name: "overlay",
      args: ["--controllers=*", "--leader-elect=true", "--use-service-account-credentials"],
    });
    // The shared informers read as kube-loom itself, the controllers write as their own accounts.
    await kubeLoom.waitFor("/readyz", 90_000);
    await apply(controlPlane, [replicaSetManifest({ name: "overlay", namespace, replicas: 1 })]);
    await waitForStatus(client, namespace, "overlay", { replicas: 1 });
    expect(counterTotal(await (await fetch(`${kubeLoom.url}/metrics`)).text(), "rest_client_requests_total", 'code="403"')).toBe(0);
  }, 180_000);
});
